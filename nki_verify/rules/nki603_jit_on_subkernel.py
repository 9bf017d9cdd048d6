"""NKI603: A function decorated with `nki.jit` is called from another kernel."""

from .base import Rule

RULE = Rule(
    code='NKI603',
    name='jit-on-subkernel',
    severity='error',
    summary='A function decorated with `nki.jit` is called from another kernel.',
    what='Finds decorated sub-kernels.',
    why='The Beta-2 compiler rejects it.',
    bad=(
        '@nki.jit\n'
        'def helper(x): ...'
    ),
    good='def helper(x): ...',
    fix='Remove the decorator.',
    implemented=False,
)
