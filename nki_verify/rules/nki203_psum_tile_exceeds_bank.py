"""NKI203: A PSUM tile that must sit in one bank is larger than 2 KiB per partition."""

from .base import Rule

RULE = Rule(
    code='NKI203',
    name='psum-tile-exceeds-bank',
    severity='error',
    summary='A PSUM tile that must sit in one bank is larger than 2 KiB per partition.',
    what=('Checks every matmul/transpose destination in PSUM (and, in Beta 1, the view a matmul result is assigned to) '
          'for every loop iteration: the bytes it covers per partition, from where it starts within its bank, must not '
          'cross a 2 KiB bank boundary (512 fp32 values). On trn3 `nc_matmul` may span banks and is not checked.'),
    why='Matmul accumulation happens within one PSUM bank.',
    bad='psum = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)',
    good='psum = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)',
    fix='Split the tile so each part fits one bank.',
)
