"""While loops whose counter doubles (`step *= 2`: log-step scans, reductions, sorting networks).  The counter is
a value the loop changes in a way not followed, so at each iteration's start it is unknown but for two things:
the first iteration starts with the value the loop is entered with, and an iteration that starts with the counter
at least that value leaves it so (proved by induction, for any value).  The second proves the slices of a prefix
scan inside the row; the first makes a slice past the end at the first iteration a finding with a counterexample
(before, both were undecided, NKI901).  A check that can fail only at later iterations stays undecided."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def prefix_sums_by_doubling(x):
    n, m = x.shape
    assert n <= 128 and m <= 512
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    step = 1
    while step < m:
        # (each column takes the one `step` to its left: columns step..m from columns 0..m - step)
        nisa.tensor_tensor(dst=t[:, step:m], data1=t[:, step:m], data2=t[:, 0:m - step], op=nl.add)
        step *= 2
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def doubled_window_past_the_end(x):
    n, m = x.shape
    assert n <= 128 and m <= 512
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    width = 2
    while width < m:
        # (twice the window: at the first iteration 4 columns of a row of 3)
        nisa.dma_copy(dst=t[:, 0:2 * width], src=x[:, 0:2 * width])  # expect: NKI101 warning, NKI101 warning
        width *= 2
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def shrinking_window_later(x):
    n, m = x.shape
    assert n <= 128 and 3 <= m <= 512
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    width = 2
    while width < m:
        # (3 columns, then 1; a width of 16 would leave the slice ending before it starts, and the squares the
        # loop takes are not followed)
        nisa.dma_copy(dst=t[:, 0:5 - width], src=x[:, 0:5 - width])  # expect: NKI901 warning
        width = width * width
    nisa.dma_copy(dst=out, src=t)
    return out
