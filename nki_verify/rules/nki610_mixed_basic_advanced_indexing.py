"""NKI610: A Beta-1 subscript mixes slices with `nl.arange` / `nl.mgrid` index grids."""

from .base import Rule

RULE = Rule(
    code='NKI610',
    name='mixed-basic-advanced-indexing',
    severity='error',
    summary='A Beta-1 subscript mixes slices (basic indexing) with `nl.arange` / `nl.mgrid` index grids '
            '(advanced indexing).',
    what=('Finds subscripts of a tensor or tile that index one axis with a slice (`:`, `0:128`) and another with '
          'an index grid built from `nl.arange` or `nl.mgrid` (`a[i_p, :]`). The NKI compiler rejects them '
          '(err_unsupported_mixing_basic_advanced_tensor_indexing). A full slice of an axis of size 1 is '
          'accepted and not reported. The rest of the kernel is still checked, reading each such slice as the '
          'index grid of the same elements.'),
    why='The kernel does not compile: "Mixing basic tensor indexing and advanced tensor indexing is not '
        'supported".',
    bad=(
        'i_p = nl.arange(128)[:, None]\n'
        'tile = nl.load(a[i_p, 0:512])'
    ),
    good=(
        'i_p = nl.arange(128)[:, None]\n'
        'i_f = nl.arange(512)[None, :]\n'
        'tile = nl.load(a[i_p, i_f])      # or, without grids: nl.load(a[0:128, 0:512])'
    ),
    fix='Index every axis of the subscript the same way: all with index grids (`nl.arange(n)[None, :]` for a '
        'free axis), or all with integers and slices.',
)
