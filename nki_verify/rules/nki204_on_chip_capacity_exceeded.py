"""NKI204: Live SBUF bytes or PSUM banks exceed the target's capacity."""

from .base import Rule

RULE = Rule(
    code='NKI204',
    name='on-chip-capacity-exceeded',
    severity='error',
    summary="Live SBUF bytes or PSUM banks exceed the target's capacity.",
    what=('Sums the area (partitions x bytes per partition; PSUM: partitions x 2 KiB banks) of the SBUF and '
          "PSUM tensors live at each allocation and compares it with the target's capacity (the allocator "
          'places rectangles, so tensors on fewer partitions can sit side by side); a single tile larger than a '
          'partition row is caught the same way. Also checks that a manual `address=` placement lies inside the '
          'buffer. A tensor is live from its allocation (a placed one: its first use) to its last use; one '
          'allocated in a loop body counts '
          'once, or once per iteration when it is used after the loop (kept in a list). Beta-1 block dimensions '
          'count one block. A size that grows with the inputs is reported only when every admissible input '
          'overflows; pass concrete shapes with --shape to check a configuration. An unknown dtype is tried at '
          '1, 2 and 4 bytes.'),
    why='The compiler must spill (slow) or fails to allocate.',
    bad='big = nl.ndarray((128, 65536), dtype=nl.float32, buffer=nl.sbuf)',
    good='big = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.sbuf)',
    fix='Tile the computation so fewer bytes are live at once.',
)
