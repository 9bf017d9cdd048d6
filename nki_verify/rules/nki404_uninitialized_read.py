"""NKI404: A tensor (or part of it) is read before anything wrote it."""

from .base import Rule

RULE = Rule(
    code='NKI404',
    name='uninitialized-read',
    severity='warning',
    summary='A tensor (or part of it) is read before anything wrote it.',
    what='Tracks the elements each write covers.',
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
    fix='Write every element before reading it.',
    implemented=False,
)
