"""NKI606: A Beta-2 ISA call without its `dst`, or its result assigned."""

from .base import Rule

RULE = Rule(
    code='NKI606',
    name='isa-call-without-dst',
    severity='error',
    summary='A Beta-2 ISA call without its `dst`, or its result assigned.',
    what=('Finds `nki.isa` calls in `nki` kernels that use the Beta-1 value-returning form. The fix rewrites '
          '`t[...] = nisa.op(x)` as `nisa.op(dst=t[...], ...)` and `t = nisa.op(x)` as an allocation shaped like '
          'the operand plus the dst call, when every argument has a Beta-2 counterpart.'),
    why='Beta-2 ISA calls write their dst and return no data.',
    bad='r = nisa.reciprocal(x)',
    good='nisa.reciprocal(dst=r, data=x)',
    fix='Pass `dst` first.',
)
