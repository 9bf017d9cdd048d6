"""Kernels launched by host code that builds its arrays with numpy arithmetic, and chains one kernel's output
into another: the shapes reach the kernels (was: NKI902, the arrays not understood)."""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def first_block(x):
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x[0:128, 0:512])  # expect: NKI101 error
    nl.store(out[0:128, 0:512], value=t)
    return out


@nki.jit
def doubled(y):
    # fed by first_block's output: an array of the shapes it has, not followed; the assert states them
    assert y.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=y.dtype, buffer=nl.shared_hbm)
    t = nl.load(y[0:128, 0:512])
    nl.store(out[0:128, 0:512], value=nl.add(t, t))
    return out


if __name__ == "__main__":
    # centred noise: (uniform - 0.5) * 2, cast; only 256 columns, so first_block reads past them
    a = ((np.random.random_sample([128, 256]) - 0.5) * 2).astype(np.float32)
    b = doubled(first_block(a))
