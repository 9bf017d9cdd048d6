"""NKI404: A tensor (or part of it) is read before anything wrote it."""

from .base import Rule

RULE = Rule(
    code='NKI404',
    name='uninitialized-read',
    severity='error',
    summary='A tensor (or part of it) is read before anything wrote it.',
    what=('Proves, element by element, that every element an instruction reads from an `nl.ndarray` SBUF/PSUM '
          'tensor was written before, on every path: by an earlier instruction in the same iteration, in an '
          'earlier iteration of a loop both share, or in some iteration of a loop that ran before. A write counts '
          'where the branches on its path were taken: the kernel\'s assertions on the way to it (an `assert` in a '
          'helper called only in even iterations) held, since the read was reached. Partial tail '
          'tiles and masked Beta-1 loads are covered exactly. An error when every admissible input reads '
          'unwritten memory, a warning when some do (a loop that may run zero times, a tail that may be short), '
          'and a warning too when the tile was filled in part just before and the reading instruction moves each '
          'element to one element of an on-chip destination (a copy, an element-wise op, a transpose: `scatter '
          'to every 16th column, transpose, read every 16th row`), since whether the stale elements are then '
          'read is the later code\'s business. '
          'Quiet (no NKI901) where the quantified query is undecided, and past a budget of 80 solver queries '
          'per kernel for these checks (the slowest kind; the kernel report counts the skipped ones); not '
          'checked through runtime offsets, in '
          'kernels with NKI902, for instructions that touch only documented parts of a view, and for PSUM '
          'accumulation (`+=`, a matmul whose `accumulate` is left to the compiler or computed). A matmul with '
          '`accumulate=True` adds onto its destination, which is a read: the first step of an accumulation '
          'group must not use it (`accumulate=(k > 0)`).'),
    why='`nl.ndarray` memory is not initialised: the kernel reads stale data.',
    bad=(
        't = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n'
        'nisa.dma_copy(dst=out, src=t)'
    ),
    good=(
        't = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n'
        'nisa.memset(dst=t, value=0.0)\n'
        'nisa.dma_copy(dst=out, src=t)'
    ),
    fix='Write every element before reading it (memset the tile, or read only what was written).',
)
