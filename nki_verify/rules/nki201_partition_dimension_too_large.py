"""NKI201: An SBUF/PSUM tensor or operand spans more than 128 partitions."""

from .base import Rule

RULE = Rule(
    code='NKI201',
    name='partition-dimension-too-large',
    severity='error',
    summary='An SBUF/PSUM tensor or operand spans more than 128 partitions.',
    what=(
        'Proves that dimension 0 (the partition dimension; Beta-1 `nl.par_dim`) of every SBUF/PSUM allocation'
        ' and compute operand is at most `nl.tile_size.pmax` (128).'
    ),
    why=(
        'SBUF and PSUM have 128 partitions; a 256-partition tile cannot be placed and every compute '
        'instruction rejects it.'
    ),
    bad='t = nl.ndarray((256, 512), dtype=nl.float32, buffer=nl.sbuf)',
    good='t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)',
    fix=(
        'Tile the partition dimension by 128 (`for i in nl.affine_range(P // 128)`), or fold extra rows into '
        'a free dimension.'
    ),
    implemented=True,
)
