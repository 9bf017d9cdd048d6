"""NKI204: Live SBUF bytes or PSUM banks exceed the target's capacity."""

from .base import Rule

RULE = Rule(
    code='NKI204',
    name='on-chip-capacity-exceeded',
    severity='error',
    summary="Live SBUF bytes or PSUM banks exceed the target's capacity.",
    what="Sums the sizes of SBUF/PSUM tensors live at the same time and compares them with the target's capacity.",
    why='The compiler must spill (slow) or fails to allocate.',
    bad='big = nl.ndarray((128, 65536), dtype=nl.float32, buffer=nl.sbuf)',
    good='big = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.sbuf)',
    fix='Tile the computation so fewer bytes are live at once.',
    implemented=False,
)
