"""NKI903: A suppression comment that suppresses nothing, or names a code that does not exist."""

from .base import Rule

RULE = Rule(
    code='NKI903',
    name='unused-suppression',
    severity='warning',
    summary='A suppression comment that suppresses nothing, or names a code that does not exist.',
    what=(
        'Checks every `# nki-verify: ignore[CODE]` comment: each code it names must be a rule code and must '
        'suppress a finding on that line (the first or last line of the finding). A bare `# nki-verify: ignore` '
        'must suppress something. Not reported for files the verifier did not fully understand (NKI902).'
    ),
    why='Suppressions outlive the bug they silenced; an unused one hides the next real finding on that line.',
    bad=(
        'for i in nl.sequential_range(n):  # nki-verify: ignore[NKI401]\n'
        '    nisa.tensor_tensor(dst=acc, data1=acc, data2=x[i], op=nl.add)'
    ),
    good=(
        'for i in nl.sequential_range(n):\n'
        '    nisa.tensor_tensor(dst=acc, data1=acc, data2=x[i], op=nl.add)'
    ),
    fix='Delete the comment, or the code in it that no longer applies.',
)
