"""NKI301: A manually placed PSUM tensor does not start at a 2 KiB bank boundary."""

from .base import Rule

RULE = Rule(
    code='NKI301',
    name='psum-address-misaligned',
    severity='error',
    summary='A manually placed PSUM tensor does not start at a 2 KiB bank boundary.',
    what=('Checks that the byte offset of `address=(partition, byte_offset)` of every PSUM tensor is a multiple of '
          '2048 for every value of the loop indices and inputs it depends on.'),
    why='The compiler rejects PSUM allocations that do not start at a bank.',
    bad='t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, 1024))',
    good='t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, 3 * 2048))',
    fix='Place PSUM tensors at multiples of 2048 bytes.',
)
