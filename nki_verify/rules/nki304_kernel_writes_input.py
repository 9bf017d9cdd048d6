"""NKI304: A kernel writes one of its input tensors."""

from .base import Rule

RULE = Rule(
    code='NKI304',
    name='kernel-writes-input',
    severity='error',
    summary='A kernel writes one of its input tensors.',
    what='Detects writes to kernel parameters that are also read.',
    why='In/out parameters are not supported by NKI.',
    bad='nisa.dma_copy(dst=a[0:128, 0:512], src=t)',
    good=(
        'out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)\n'
        'nisa.dma_copy(dst=out[0:128, 0:512], src=t)'
    ),
    fix='Return a new output tensor.',
    implemented=False,
)
