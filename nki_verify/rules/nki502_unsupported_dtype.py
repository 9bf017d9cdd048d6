"""NKI502: An operand's dtype is not accepted by the instruction (on this target)."""

from .base import Rule

RULE = Rule(
    code='NKI502',
    name='unsupported-dtype',
    severity='error',
    summary="An operand's dtype is not accepted by the instruction (on this target).",
    what=(
        'Checks dtypes against compiler/spec: matmul inputs and destinations, bitwise ops on integers, index '
        'dtypes of gathers, dtype equalities.'
    ),
    why='The engines only implement those dtypes; the compiler rejects the call.',
    bad=(
        'psum = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.psum)\n'
        'nisa.nc_matmul(dst=psum, stationary=a, moving=b)  # trn2 matmul writes float32'
    ),
    good=(
        'psum = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)\n'
        'nisa.nc_matmul(dst=psum, stationary=a, moving=b)'
    ),
    fix='Use a supported dtype (the message lists them).',
    implemented=True,
)
