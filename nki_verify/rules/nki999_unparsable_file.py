"""NKI999: The file is not valid Python."""

from .base import Rule

RULE = Rule(
    code='NKI999',
    name='unparsable-file',
    severity='error',
    summary='The file is not valid Python.',
    what='Reported when the file cannot be parsed.',
    why='Nothing in it can be verified.',
    bad=(
        'def k(:\n'
        '    pass'
    ),
    good=(
        'def k():\n'
        '    pass'
    ),
    fix='Fix the syntax error.',
    implemented=True,
)
