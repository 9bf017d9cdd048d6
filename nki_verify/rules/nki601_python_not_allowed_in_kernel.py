"""NKI601: Python not accepted by the current NKI compiler inside a kernel."""

from .base import Rule

RULE = Rule(
    code='NKI601',
    name='python-not-allowed-in-kernel',
    severity='error',
    summary='Python not accepted by the current NKI compiler inside a kernel.',
    what=('Checks the Beta-2 language subset where the NKI language guide and the compiled corpus agree: '
          'instantiating a class that does not inherit `nl.NKIObject` (enums are fine), a `*` separator or a '
          '`list`-typed parameter in a kernel signature, a buffer given as a string (`buffer=\'sbuf\'`), and '
          'the Beta-1 `neuronxcc.nki` namespace used inside an `nki` kernel (an error from NKI 0.4.0, a warning '
          'before). `is None` and raw integers for ISA enums (`dge_mode=3`), which older notes forbid, are used '
          'by the current library and are not reported.'),
    why='The NKI compiler rejects it.',
    bad='class Cfg: ...',
    good='class Cfg(nl.NKIObject): ...',
    fix='Use the supported subset.',
)
