"""NKI202: A matrix multiply (or Tensor Engine transpose) exceeds the Tensor Engine's limits."""

from .base import Rule

RULE = Rule(
    code='NKI202',
    name='matmul-tile-too-large',
    severity='error',
    summary="A matrix multiply (or Tensor Engine transpose) exceeds the Tensor Engine's limits.",
    what=(
        'Checks `nisa.nc_matmul` / `nl.matmul` / transposes: contraction K <= 128, stationary free size M <= '
        '128, moving free size N <= 512 (trn1/trn2; 4096/8192 on trn3), transposes at most 128x128 (32x32 on '
        'the Vector Engine).'
    ),
    why=(
        'The PE array is 128x128 and one PSUM bank holds 512 fp32 values per partition; larger operands are '
        'rejected.'
    ),
    bad='nisa.nc_matmul(dst=psum, stationary=lhsT[0:128, 0:128], moving=rhs[0:128, 0:1024])',
    good=(
        'for n in range(2):\n'
        '    nisa.nc_matmul(dst=psum[n], stationary=lhsT[0:128, 0:128], moving=rhs[0:128, n * 512:(n + 1) * 512])'
    ),
    fix=(
        'Tile the moving free dimension by `nl.tile_size.gemm_moving_fmax` and the stationary one by '
        '`gemm_stationary_fmax`.'
    ),
    implemented=True,
)
