"""NKI603: A function decorated with `nki.jit` is called from another kernel."""

from .base import Rule

RULE = Rule(
    code='NKI603',
    name='jit-on-subkernel',
    severity='error',
    summary='A function decorated with `nki.jit` is called from another kernel.',
    what=('Finds `@nki.jit` functions called from another kernel when the target is NKI 0.2 (the 0.2.0 '
          'migration guide requires removing the decorator). Not reported for current versions: the NKI library '
          'compiled by the current compiler calls decorated kernels from kernels.'),
    why='The Beta-2 compiler rejects it.',
    bad=(
        '@nki.jit\n'
        'def helper(x): ...'
    ),
    good='def helper(x): ...',
    fix='Remove the decorator.',
)
