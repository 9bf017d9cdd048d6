"""NKI101: An index or slice falls outside the tensor it indexes."""

from .base import Rule

RULE = Rule(
    code='NKI101',
    name='out-of-bounds-access',
    severity='error',
    summary='An index or slice falls outside the tensor it indexes.',
    what=(
        'Proves, for every input shape the kernel admits and every loop iteration and program id, that each '
        'integer index lies in [0, size) and each slice start:stop lies in [0, size] on its axis (Beta-1 '
        '`nl.arange`/`nl.mgrid` index expressions included, under their `mask=`). Python list indices inside '
        'kernels are checked the same way.'
    ),
    why=(
        'An out-of-bounds slice is rejected by the compiler after minutes of compilation at best; a DMA that '
        "reads past a tensor's end can silently read another tensor's data."
    ),
    bad=(
        '@nki.jit\n'
        'def k(a):\n'
        '    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n'
        '    for i in nl.affine_range(a.shape[0] // 128):\n'
        '        t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)\n'
        '        nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128 + 1, 0:512])  # one row too many\n'
        '    return out'
    ),
    good=(
        '@nki.jit\n'
        'def k(a):\n'
        '    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n'
        '    for i in nl.affine_range(a.shape[0] // 128):\n'
        '        t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)\n'
        '        nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128, 0:512])\n'
        '    return out'
    ),
    fix=(
        'Fix the bound; for tail tiles clamp the end with `min(start + TILE, size)`; when the kernel relies '
        'on a shape precondition, state it with an `assert` (the diagnostic suggests one) so the verifier and'
        ' your users see it.'
    ),
    implemented=True,
)
