"""NKI503: An instruction or feature is not available on the selected target."""

from .base import Rule

RULE = Rule(
    code='NKI503',
    name='unavailable-on-target',
    severity='error',
    summary='An instruction or feature is not available on the selected target.',
    what=(
        'Checks instruction availability per target (trn1/trn2/trn3), e.g. `activate2`/`nc_matmul_mx` need '
        'trn3, `dma_transpose`/`core_barrier` need trn2 or later. A warning when the target is only the default '
        '(trn2; no `--target`, no `platform_target=`). The finding holds on every input that reaches the '
        'instruction, so where the solver cannot decide whether any input reaches it, it is still reported, '
        'as a warning that says so, rather than as NKI901. Also what no target has (Beta 2): `nl.divide`, '
        '`nl.fmod`, `nl.mod` and `nl.power` with a scalar exponent (the release notes: simulation only), and '
        'divide/fmod/mod as the operator of `tensor_tensor`, `tensor_scalar`, `scalar_tensor_tensor` or '
        '`tensor_tensor_scan` (not in the ISA\'s ALU operator table): an error whatever the target.'
    ),
    why='The compiler for that target does not have the instruction.',
    bad='nisa.activate2(dst=o, op=nl.exp, data=x, imm0=1.0, imm1=0.0, op0=nl.multiply, op1=nl.add)  # --target trn2',
    good='nisa.activation(dst=o, op=nl.exp, data=x, scale=1.0)',
    fix='Use an instruction the target has, or select the right `--target`; for a division, multiply by '
        '`nl.reciprocal(y)`.',
    implemented=True,
)
