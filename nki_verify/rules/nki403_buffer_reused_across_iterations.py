"""NKI403: A buffer allocated outside an affine loop is fully rewritten in every iteration."""

from .base import Rule

RULE = Rule(
    code='NKI403',
    name='buffer-reused-across-iterations',
    severity='warning',
    summary='A buffer allocated outside an affine loop is fully rewritten in every iteration.',
    what=('Finds on-chip buffers declared outside an `affine_range` loop that every iteration overwrites in '
          'full and reads only what it wrote itself: correct, but the iterations serialise on the buffer.'),
    why='The iterations serialise on the buffer.',
    bad=(
        'buf = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n'
        'for i in nl.affine_range(8):\n'
        '    nisa.dma_copy(dst=buf, src=inp[i])'
    ),
    good=(
        'for i in nl.affine_range(8):\n'
        '    buf = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n'
        '    nisa.dma_copy(dst=buf, src=inp[i])'
    ),
    fix='Allocate the buffer inside the loop.',
)
