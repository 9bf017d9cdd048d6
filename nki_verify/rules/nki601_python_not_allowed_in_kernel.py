"""NKI601: Python not accepted by the current NKI compiler inside a kernel."""

from .base import Rule

RULE = Rule(
    code='NKI601',
    name='python-not-allowed-in-kernel',
    severity='error',
    summary='Python not accepted by the current NKI compiler inside a kernel.',
    what='Checks the Beta-2 language subset.',
    why='The NKI compiler rejects it.',
    bad='class Cfg: ...',
    good='class Cfg(nl.NKIObject): ...',
    fix='Use the supported subset.',
    implemented=False,
)
