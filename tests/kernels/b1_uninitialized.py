"""Beta-1: a masked load leaves the rest of the tile unwritten."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def masked_load_full_store(x):
    # Rows past sz_p are masked off in the load but stored anyway.
    P, F = x.shape
    assert P <= 128 and F == 512
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((nl.par_dim(128), 512), dtype=x.dtype, buffer=nl.sbuf)
    i_p, i_f = nl.mgrid[0:128, 0:512]
    t[i_p, i_f] = nl.load(x[i_p, i_f], mask=(i_p < P))
    nl.store(out[i_p, i_f], value=t[i_p, i_f])  # expect: NKI404 warning
    return out


@nki.jit
def masked_load_masked_store(x):
    P, F = x.shape
    assert P <= 128 and F == 512
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((nl.par_dim(128), 512), dtype=x.dtype, buffer=nl.sbuf)
    i_p, i_f = nl.mgrid[0:128, 0:512]
    t[i_p, i_f] = nl.load(x[i_p, i_f], mask=(i_p < P))
    nl.store(out[i_p, i_f], value=t[i_p, i_f], mask=(i_p < P))
    return out
