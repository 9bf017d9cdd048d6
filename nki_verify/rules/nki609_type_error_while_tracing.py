"""NKI609: An operation Python raises TypeError for while tracing (a module called, operators on a Beta-2 tensor)."""

from .base import Rule

RULE = Rule(
    code='NKI609',
    name='type-error-while-tracing',
    severity='error',
    summary='An operation Python raises TypeError for while tracing (a module called, operators on a Beta-2 '
            'tensor).',
    what=('Finds, in code a kernel runs, a call of a module (`from ..utils import helper` names the module '
          '`helper.py` when the package does not import the function into its `__init__`), and arithmetic, '
          'bitwise or ordering operators applied to a tensor in a Beta-2 (`nki`) kernel: Beta-2 tensors have no '
          'operators (the tile operators `a + b`, `a * 2` were Beta 1\'s), so `block_idx * row_size` with '
          '`block_idx` a (1, 1) SBUF tile is no number; and a call of an NKI API with arguments none of its forms '
          'takes (`nl.sum(x)` without its `axis`, a positional argument too many). A warning when only some inputs '
          'reach it, an error when every analysed launch does; the inputs that reach it are not analysed further, '
          'but for an API call\'s arguments, after which the analysis goes on with the call\'s result unknown.'),
    why='Tracing raises TypeError, so the kernel does not compile for these inputs.',
    bad=(
        'from ..utils import stream_copy   # the module stream_copy.py\n'
        'stream_copy(dst, src)\n'
        '\n'
        'offset = block_idx * row_size     # block_idx: an SBUF tile\n'
        'nisa.dma_copy(dst=out.ap([[row_size, 1], [1, row_size]], offset=offset), src=row)'
    ),
    good=(
        'from ..utils.stream_copy import stream_copy\n'
        'stream_copy(dst, src)\n'
        '\n'
        'nisa.dma_copy(dst=out.ap([[row_size, 1], [1, row_size]], scalar_offset=block_idx, indirect_dim=0), '
        'src=row)'
    ),
    fix='Import the function, not its module; hand a value held in a tile to the instruction that reads it '
        '(`scalar_offset=`, a register), or compute on tiles with `nisa` instructions.',
)
