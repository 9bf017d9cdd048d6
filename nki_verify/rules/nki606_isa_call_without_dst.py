"""NKI606: A Beta-2 ISA call without its `dst`, or its result assigned."""

from .base import Rule

RULE = Rule(
    code='NKI606',
    name='isa-call-without-dst',
    severity='error',
    summary='A Beta-2 ISA call without its `dst`, or its result assigned.',
    what='Checks the dst-first form.',
    why='Beta-2 ISA calls write their dst and return no data.',
    bad='r = nisa.reciprocal(x)',
    good='nisa.reciprocal(dst=r, data=x)',
    fix='Pass `dst` first.',
    implemented=False,
)
