"""Constructs the verifier cannot follow are said (NKI902 / NKI901), never silently passed."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def dynamic_size(x):
    assert x.shape == (128, 512)
    n = eval("128")  # expect: NKI902 warning
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[0:n, :], src=x[0:n, 0:512])  # expect: NKI901 warning
    nisa.dma_copy(dst=out, src=t)
    return out
