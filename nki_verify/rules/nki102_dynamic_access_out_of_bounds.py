"""NKI102: An access pattern (`.ap`) or a runtime (register / SBUF-held) offset may address memory outside its
tensor.
"""

from .base import Rule

RULE = Rule(
    code='NKI102',
    name='dynamic-access-out-of-bounds',
    severity='warning',
    summary=(
        'An access pattern (`.ap`) or a runtime (register / SBUF-held) offset may address memory outside its '
        'tensor.'
    ),
    what=(
        'Checks `.ap(pattern=..., offset=..., scalar_offset=..., vector_offset=...)` views element by element'
        ' with the documented address formula, and dynamic offsets against what was written into them.'
    ),
    why='Out-of-bounds dynamic DMA raises a runtime error (oob_mode.error) or silently skips data (oob_mode.skip).',
    bad='nisa.dma_copy(dst=t, src=a.ap(pattern=[[512, 128], [1, 513]], offset=0))',
    good='nisa.dma_copy(dst=t, src=a.ap(pattern=[[512, 128], [1, 512]], offset=0))',
    fix='Keep every element of the pattern inside the tensor; bound dynamic offsets with a clamp or an assert.',
    implemented=False,
)
