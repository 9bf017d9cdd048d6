"""NKI604: A dict with non-string keys inside a kernel."""

from .base import Rule

RULE = Rule(
    code='NKI604',
    name='non-string-dict-key',
    severity='error',
    summary='A dict with non-string keys inside a kernel.',
    what='Checks the keys of dict displays evaluated inside an `nki` kernel.',
    why='The Beta-2 compiler only supports string keys.',
    bad='d = {0: t}',
    good="d = {'0': t}",
    fix='Use string keys.',
)
