"""Kernels launched by host code that builds its arrays with numpy arithmetic, and chains one kernel's output
into another: the shapes reach the kernels (was: NKI902, the arrays not understood).  Arrays inside a list of
tuples the launcher passes are input tensors too, and `nt.tensor[[M, N], dtype]` placeholders (the matmul
tutorial's benchmark launches) are inputs of that shape."""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt


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


@nki.jit
def scale_and_shift_layers(x, layers):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    for layer in layers:
        t = nl.add(nl.multiply(t, nl.load(layer[0])), nl.load(layer[1][0:128, 0:512]))  # expect: NKI101 error
    nl.store(out, value=t)
    return out


if __name__ == "__main__":
    # the second layer's shift has 256 columns only
    layers = [(np.ones((128, 512), dtype=np.float32), np.zeros((128, 512), dtype=np.float32)),
              (np.ones((128, 512), dtype=np.float32), np.zeros((128, 256), dtype=np.float32))]
    scale_and_shift_layers(np.zeros((128, 512), dtype=np.float32), layers)
    # centred noise: (uniform - 0.5) * 2, cast; only 256 columns, so first_block reads past them
    a = ((np.random.random_sample([128, 256]) - 0.5) * 2).astype(np.float32)
    b = doubled(first_block(a))


@nki.jit
def first_wide_block(a):
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a[0:128, 0:512]))  # expect: NKI101 error
    return out


if __name__ == "__main__":
    nki.benchmark(warmup=5, iters=10)(first_wide_block)(nt.tensor[[128, 256], nl.bfloat16])


@nki.jit
def rows_in_one_tile(x):
    # one tile of all the rows: fine for the 128 rows of the first launch, not for the 256 of the second
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)  # expect: NKI201 error
    nl.store(out, value=nl.add(t, t))
    return out


if __name__ == "__main__":
    import torch  # host code only: an array wrapped by torch keeps the shape numpy gave it

    rows_in_one_tile(torch.from_numpy(np.zeros((128, 64), dtype=np.float32)))
    rows_in_one_tile(torch.tensor(np.zeros((256, 64), dtype=np.float32), dtype=torch.bfloat16))


@nki.jit
def first_columns(x, **kwargs):
    # the launch's keywords beyond the named parameters are the kernel's **kwargs
    cols = kwargs["cols"]
    out = nl.ndarray((128, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x[0:128, 0:cols]))  # expect: NKI101 error
    return out


def run_first_columns(x):
    return first_columns(x, cols=96)


if __name__ == "__main__":
    run_first_columns(np.zeros((128, 64), dtype=np.float32))


@nki.jit
def double_each_head(q):
    # q is 4-D for its launcher whatever the sizes: torch.randn(b, h, s, d) with the sizes its parameters
    s, d = q.shape[2], q.shape[3]
    assert s <= 128 and d <= 512
    out = nl.ndarray(q.shape, dtype=q.dtype, buffer=nl.shared_hbm)
    bi = nl.program_id(axis=0)
    hi = nl.program_id(axis=1)
    t = nl.load(q[bi, hi, 0:s, 0:d])
    nl.store(out[bi, hi, 0:s, 0:d], value=nl.multiply(t, 2.0))
    return out


def run_heads(b: int, h: int, s: int, d: int):
    import torch

    return double_each_head[b, h](torch.randn(b, h, s, d))
