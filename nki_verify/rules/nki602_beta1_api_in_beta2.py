"""NKI602: An API removed from the current namespace is used in a Beta-2 kernel."""

from .base import Rule

RULE = Rule(
    code='NKI602',
    name='beta1-api-in-beta2',
    severity='error',
    summary='An API removed from the current namespace is used in a Beta-2 kernel.',
    what='Finds `nl.arange`, `nl.mgrid`, `mask=`, `nl.par_dim` and other Beta-1 APIs in `nki` kernels.',
    why='They were removed in NKI 0.2.',
    bad='i_p, i_f = nl.mgrid[0:128, 0:512]',
    good='t[0:128, 0:512]',
    fix='Use slices or `.ap()`.',
    implemented=False,
)
