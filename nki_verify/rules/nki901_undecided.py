"""NKI901: The verifier could not decide whether an access or limit is safe."""

from .base import Rule

RULE = Rule(
    code='NKI901',
    name='undecided',
    severity='warning',
    summary='The verifier could not decide whether an access or limit is safe.',
    what=(
        'Reported when a proof obligation times out, is non-linear beyond the solver, or depends on a value '
        'the front end could not determine. The message names the obligation and the reason. One per line '
        '(the others there are counted in it), and none for a check that another launch context, or another '
        'call of the same helper, reports as a finding at that place: the finding flags it already.'
    ),
    why='An unchecked access may still be out of bounds: the verifier never silently passes what it could not prove.',
    bad=(
        'n = some_runtime_helper()\n'
        'nisa.dma_copy(dst=t, src=a[0:n, 0:512])'
    ),
    good=(
        'n = a.shape[0]\n'
        'assert n <= 128\n'
        'nisa.dma_copy(dst=t, src=a[0:n, 0:512])'
    ),
    fix='State the missing fact with an assert, or pass concrete shapes with `--shape`.',
    implemented=True,
)
