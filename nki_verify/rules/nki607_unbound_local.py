"""NKI607: A name read on a path where the function never assigned it (UnboundLocalError while tracing)."""

from .base import Rule

RULE = Rule(
    code='NKI607',
    name='unbound-local',
    severity='error',
    summary='A name read on a path where the function never assigned it (UnboundLocalError while tracing).',
    what=('Finds a read of a name that the function assigns somewhere (which makes it local to the function) but '
          'that no path followed to the read assigned: a branch the launch does not take, a loop that runs no '
          'iteration, a misspelt assignment. A warning when only some inputs take that path (the finding then '
          'says which branch), an error when every analysed launch does; the inputs that take it are not analysed '
          'further.'),
    why='Tracing raises UnboundLocalError, so the kernel does not compile for these inputs.',
    bad=(
        'if use_mask:\n'
        '    causal_mask = i >= j\n'
        'else:\n'
        '    casual_mask = True\n'
        'if causal_mask:\n'
        '    ...'
    ),
    good=(
        'if use_mask:\n'
        '    causal_mask = i >= j\n'
        'else:\n'
        '    causal_mask = True\n'
        'if causal_mask:\n'
        '    ...'
    ),
    fix='Assign the name on every path that reads it.',
)
