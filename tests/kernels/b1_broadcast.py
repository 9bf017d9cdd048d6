"""Element-wise operands of different ranks broadcast as numpy does: trailing axes aligned."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def centre_rows(x):
    # the mean keeps its reduced axis: (128, 8, 1) against (128, 8, 64)
    assert x.shape == (128, 8, 64)
    t = nl.load(x)
    mu = nl.mean(t, axis=-1, keepdims=True)
    out = nl.ndarray((128, 8, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.subtract(t, mu))
    return out


@nki.jit
def centre_rows_without_keepdims(x):
    # (4, 128) against (128, 8, 64): numpy aligns 128 with 512
    assert x.shape == (128, 8, 64)
    t = nl.load(x)
    mu = nl.mean(t, axis=-1)
    out = nl.ndarray((128, 8, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.subtract(t, mu))  # expect: NKI501 error
    return out


@nki.jit
def centre_rows_of_a_constant_tile(x):
    assert x.shape[0] >= 128 and x.shape[1] >= 8 and x.shape[2] >= 64
    t = nl.load(x[0:128, 0:8, 0:64])
    mu = nl.mean(t, axis=2)
    out = nl.ndarray((128, 8, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.subtract(t, mu))  # expect: NKI501 error
    return out
