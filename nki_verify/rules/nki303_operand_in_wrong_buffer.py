"""NKI303: An instruction operand lives in a buffer the instruction cannot access."""

from .base import Rule

RULE = Rule(
    code='NKI303',
    name='operand-in-wrong-buffer',
    severity='error',
    summary='An instruction operand lives in a buffer the instruction cannot access.',
    what=(
        "Checks each operand's buffer (HBM / SBUF / PSUM) against the instruction's specification (e.g. "
        'nc_matmul reads SBUF and writes PSUM; compute engines cannot read HBM; GpSimd cannot touch PSUM).'
    ),
    why='The engine has no path to that memory; the compiler rejects the kernel.',
    bad='nisa.tensor_tensor(dst=out_sb, data1=a_hbm, data2=b_sb, op=nl.add)',
    good=(
        'nisa.dma_copy(dst=a_sb, src=a_hbm)\n'
        'nisa.tensor_tensor(dst=out_sb, data1=a_sb, data2=b_sb, op=nl.add)'
    ),
    fix='Move data with `nisa.dma_copy` (HBM<->SBUF) or `nisa.tensor_copy` (PSUM->SBUF) first.',
    implemented=True,
)
