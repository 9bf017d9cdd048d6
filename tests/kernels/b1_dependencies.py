"""Beta-1 affine_range promises independent iterations: a carried dependency is an error."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def accumulate_with_plus_equals(x):
    assert x.shape == (4, 128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(4):
        acc[...] += nl.load(x[i])
    nl.store(out, value=acc)
    return out


@nki.jit
def accumulate_with_tensor_tensor(x):
    assert x.shape == (4, 128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(4):
        acc[...] = nisa.tensor_tensor(acc, nl.load(x[i]), op=nl.add)  # expect: NKI401 error
    nl.store(out, value=acc)
    return out


@nki.jit
def prefix_rows(x):
    assert x.shape == (8, 128, 512)
    out = nl.ndarray((8, 128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    for i in nl.affine_range(7):
        t = nl.load(out[i])
        nl.store(out[i + 1], value=t)  # expect: NKI401 error
    return out


@nki.jit
def prefix_rows_sequential(x):
    assert x.shape == (8, 128, 512)
    out = nl.ndarray((8, 128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[0], value=nl.load(x[0]))
    for i in nl.sequential_range(7):
        t = nl.load(out[i])
        nl.store(out[i + 1], value=t)
    return out
