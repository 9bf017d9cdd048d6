"""NKI902: A construct the verifier does not understand; the code around it was not fully checked."""

from .base import Rule

RULE = Rule(
    code='NKI902',
    name='not-understood',
    severity='warning',
    summary='A construct the verifier does not understand; the code around it was not fully checked.',
    what=(
        'Reported by the front end at the span of a Python construct or NKI API it does not model. What the '
        'construct assigns is treated as unknown.'
    ),
    why='Checks that depend on the construct cannot be proven; this is said rather than silently skipped.',
    bad='x = eval("128")',
    good='x = 128',
    fix='Rewrite the construct in the supported subset, or report it so the verifier learns it.',
    implemented=True,
)
