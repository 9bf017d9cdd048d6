"""NKI102: An access pattern (`.ap`) or a runtime (register / SBUF-held) offset may address memory outside its
tensor.
"""

from .base import Rule

RULE = Rule(
    code='NKI102',
    name='dynamic-access-out-of-bounds',
    severity='error',
    summary=(
        'An access pattern (`.ap`) or a runtime (register / SBUF-held) offset may address memory outside its '
        'tensor.'
    ),
    what=(
        'Proves every element of `.ap(pattern=..., offset=..., scalar_offset=..., vector_offset=...)` views in '
        'bounds with the documented address formula (offset + scalar_offset * prod(shape[indirect_dim+1:]) + '
        'sum(step * index); a vector offset picks the row), and on SBUF/PSUM that the first pair walks whole '
        'partitions (its step is the row length) and the others stay inside a partition row. Runtime values '
        '(registers, SBUF-held indices, `nl.ds(reg, n)`, Beta-1 tile indices) are bounded by what the kernel '
        'wrote into them: memset/iota/register_move constants and their images through copies, add, subtract, '
        'multiply, min, max and bitwise_and; a value that grows in a loop is unbounded in that direction. An '
        'error when the bounded values break the bounds; a warning naming the value when nothing bounds it. '
        'Accesses of instructions with `oob_mode=nisa.oob_mode.skip` are not checked for their runtime part.'
    ),
    why='Out-of-bounds dynamic DMA raises a runtime error (oob_mode.error) or silently skips data (oob_mode.skip).',
    bad='nisa.dma_copy(dst=t, src=a.ap(pattern=[[512, 128], [1, 513]], offset=0))',
    good='nisa.dma_copy(dst=t, src=a.ap(pattern=[[512, 128], [1, 512]], offset=0))',
    fix=('Keep every element of the pattern inside the tensor; bound a runtime offset where it is written (a '
         'clamp with nisa.tensor_scalar(..., op0=nl.minimum, ...)), or let the DMA skip with oob_mode.skip.'),
)
