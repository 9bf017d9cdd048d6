"""NKI605: A dynamic `while reg:` loop whose body never updates `reg`."""

from .base import Rule

RULE = Rule(
    code='NKI605',
    name='dynamic-while-never-updated',
    severity='error',
    summary='A dynamic `while reg:` loop whose body never updates `reg`.',
    what='Checks register updates.',
    why='The loop never terminates.',
    bad=(
        'while reg:\n'
        '    ...'
    ),
    good=(
        'while reg:\n'
        '    ...\n'
        '    nisa.register_load(reg, cond)'
    ),
    fix='Update the register in the body.',
    implemented=False,
)
