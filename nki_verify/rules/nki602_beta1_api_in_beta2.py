"""NKI602: An API removed from the current namespace is used in a Beta-2 kernel."""

from .base import Rule

RULE = Rule(
    code='NKI602',
    name='beta1-api-in-beta2',
    severity='error',
    summary='An API removed from the current namespace is used in a Beta-2 kernel.',
    what=('Finds `nl.arange`, `nl.mgrid`, `mask=` and `nl.par_dim` in `nki` kernels; `nl.load`/`nl.store` only '
          'when the target is NKI 0.2 (they came back as wrappers in 0.3.0); slicing a slice only before NKI '
          '0.5 (`--nki-version`, config `nki-version`). An index grid used only as whole subscript items gets a '
          'fix that turns it into integer slices.'),
    why='They were removed in NKI 0.2.',
    bad='i_p, i_f = nl.mgrid[0:128, 0:512]',
    good='t[0:128, 0:512]',
    fix='Use slices or `.ap()`.',
)
