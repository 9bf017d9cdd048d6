"""NKI402: Two program instances write (or write and read) the same element without a barrier."""

from .base import Rule

RULE = Rule(
    code='NKI402',
    name='spmd-race',
    severity='error',
    summary='Two program instances write (or write and read) the same element without a barrier.',
    what=('Proves race freedom across the launch grid (Beta 1) or the cores of an LNC2 launch (Beta 2) with two '
          'symbolic program instances p != q: no write of one meets a read or write of the other on shared HBM '
          'unless a `core_barrier` both reach lies between them. Both instances writing the same values to the '
          'same place is not a race: the same constant (zero-initialising an output), or the same instruction '
          'computed the same way by both from data no instance-dependent instruction wrote (each core copying '
          'the same tail columns of an input), or a copy of a view onto itself (a flush, `dma_copy(out, out)`). '
          'Also reports a barrier only some cores reach.'),
    why='Concurrent instances corrupt shared HBM.',
    bad='nisa.dma_copy(dst=out[0:128, :], src=t)  # every instance writes rows 0..127',
    good=(
        'pid = nl.program_id(0)\n'
        'nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)'
    ),
    fix='Give each instance its own region, or synchronise with core_barrier.',
)
