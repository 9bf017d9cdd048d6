"""NKI203: A PSUM tile that must sit in one bank is larger than 2 KiB per partition."""

from .base import Rule

RULE = Rule(
    code='NKI203',
    name='psum-tile-exceeds-bank',
    severity='error',
    summary='A PSUM tile that must sit in one bank is larger than 2 KiB per partition.',
    what='Checks matmul/transpose destinations in PSUM against the 2 KiB (512 fp32) bank size.',
    why='Matmul accumulation happens within one PSUM bank.',
    bad='psum = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)',
    good='psum = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)',
    fix='Split the tile so each part fits one bank.',
    implemented=False,
)
