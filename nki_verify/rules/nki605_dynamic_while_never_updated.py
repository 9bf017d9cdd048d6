"""NKI605: A dynamic `while reg:` loop whose body never updates `reg`."""

from .base import Rule

RULE = Rule(
    code='NKI605',
    name='dynamic-while-never-updated',
    severity='error',
    summary='A dynamic `while reg:` loop whose body never updates `reg`.',
    what=('Checks that the body of a dynamic `while reg:` loop passes `reg` to something that can update it '
          '(`nisa.register_load`, `nisa.register_move`, or a helper); `nisa.register_store` only reads it.'),
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
)
