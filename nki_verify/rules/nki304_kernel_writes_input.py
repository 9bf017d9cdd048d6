"""NKI304: A kernel writes one of its input tensors."""

from .base import Rule

RULE = Rule(
    code='NKI304',
    name='kernel-writes-input',
    severity='error',
    summary='A kernel writes one of its input tensors.',
    what=('Detects writes to a kernel parameter that the kernel also reads before writing. A parameter that is only '
          'written is an output passed in (Beta-1 style) and is not reported.'),
    why='In/out parameters are not supported by NKI.',
    bad='nisa.dma_copy(dst=a[0:128, 0:512], src=t)',
    good=(
        'out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)\n'
        'nisa.dma_copy(dst=out[0:128, 0:512], src=t)'
    ),
    fix='Return a new output tensor.',
)
