"""NKI302: Two manually placed tensors overlap while both are live."""

from .base import Rule

RULE = Rule(
    code='NKI302',
    name='manual-allocations-overlap',
    severity='error',
    summary='Two manually placed tensors overlap while both are live.',
    what=('Compares the partition x byte rectangles of tensors placed with `address=` that are live at the same '
          'time, including two iterations of a tensor allocated in a loop and kept after it (a list of tiles). '
          'A placed tensor is live from its first use (nothing reserves its bytes before) to its last use, and '
          'liveness is by value: a write of one inside the other\'s live range only counts when a later read of '
          'the other (or the next iteration\'s read, in a loop around both) may still see the value it '
          'overwrote, that is, when no write of the other that rewrites what the read reads (the same view or '
          'the whole tile, on every path to the read) comes in between. A scratch tile used between a matmul '
          'tile\'s last read and its next matmul is fine; a placement outside the buffer is NKI204 instead. Two '
          'tensors live together only through a loop\'s back edge are a warning (an overlap only if one carries '
          'a value from one iteration to the next).'),
    why='Overlapping live buffers corrupt each other.',
    bad=(
        'a = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf, address=(0, 0))\n'
        'b = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf, address=(0, 512))'
    ),
    good=(
        'a = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf, address=(0, 0))\n'
        'b = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf, address=(0, 1024))'
    ),
    fix='Give each live tensor its own byte range.',
)
