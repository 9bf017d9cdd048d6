"""Paths that fail (an assert or raise the analysis reaches) drop only themselves: the code after a helper
that returns on some paths and raises on the rest is still checked, a kernel is analysed with the optional
input or input rank that keeps some path alive (enum inputs: tests/test_api.py), and a kernel none of whose
paths survive says so.  (Each of these used to end the analysis of the whole kernel silently: nothing after was checked.)"""
import nki
import nki.isa as nisa
import nki.language as nl


def size_in_bytes(dtype):
    # the library idiom: names compared as strings, and a failure when none matches
    if str(dtype) == str(nl.float32):
        return 4
    elif str(dtype) == str(nl.bfloat16) or str(dtype) == str(nl.float16):
        return 2
    elif str(dtype) in ["float8e4", "float8_e4m3"]:
        return 1
    assert False, f"dtype size unknown: {dtype}"


@nki.jit
def sized_by_a_dtype_helper(x):
    n = size_in_bytes(x.dtype)
    assert x.shape == (128, 512)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:512], src=x[0:128, n:512 + n])  # expect: NKI101 error
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def sized_by_a_dtype_helper_in_bounds(x):
    # the good twin: the tile the helper sizes stays inside the input
    n = size_in_bytes(x.dtype)
    assert x.shape == (128, 512)
    t = nl.ndarray((128, 128 * n), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[0:128, 0:128 * n])
    out = nl.ndarray((128, 128 * n), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def one_of_two_optional_inputs(q, cache=None, cos=None):
    # a launch passes the cache or cos: analysed with the one tested last before every path failed
    if cache is not None:
        table = cache
    else:
        assert cos is not None, "pass the cache or cos"
        table = cos
    assert q.shape == (128, 256) and table.shape == (128, 256)
    t = nl.ndarray((128, 256), dtype=q.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=table[0:128, 0:256])
    nisa.dma_copy(dst=t[:, 0:128], src=q[0:128, 200:328])  # expect: NKI101 error
    out = nl.ndarray((128, 256), dtype=q.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


class View(nl.NKIObject):
    """A strided view of a tensor, like the library's: asserts on the rank it reads off the shape."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.shape = tuple(tensor.shape)
        self.offset = 0

    def select(self, dim, index):
        assert dim < len(self.shape), f"dimension {dim} out of range for {len(self.shape)}D"
        v = View(self.tensor)
        v.shape = tuple(s for i, s in enumerate(self.shape) if i != dim)
        v.offset = self.offset + index
        return v


@nki.jit
def view_of_a_rank_four_input(w):
    # two selects and a third axis: the input has rank 4 (its rank is only a guess until the view asserts it)
    e = 1
    assert w.shape[0] == 4
    v = View(w).select(0, e).select(0, 0)
    assert v.shape[0] == 128 and v.shape[1] == 512
    t = nl.ndarray((128, 512), dtype=w.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=w[e, 0, 0:128, 0:512])
    nisa.dma_copy(dst=t[:, 0:2], src=w[e, 0, 0:128, 511:513])  # expect: NKI101 error
    out = nl.ndarray((128, 512), dtype=w.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def gate_and_up_of_the_same_shape(gate, up):
    # one input's rank is settled by unpacking, the other's follows from the shapes being equal
    p, n, i = gate.shape
    assert gate.shape == up.shape
    assert p == 128 and n == 4 and i == 256
    t = nl.ndarray((128, 4, 256), dtype=gate.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=up[0:128, 0:4, 0:256])
    nisa.dma_copy(dst=t[:, 0:1, :], src=up[0:128, 4:5, 0:256])  # expect: NKI101 error
    out = nl.ndarray((128, 4, 256), dtype=gate.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


def only_small(n):
    if n <= 4:
        return n
    raise ValueError("too large")


@nki.jit
def every_path_fails(x):  # expect: NKI901 warning
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    only_small(8)
    return out


@nki.jit
def no_layout_of_the_input_gets_through(x, blocked: int):  # expect: NKI901 warning
    # the two layouts unpack different ranks of x, so it is analysed once per rank, each run dropping the other
    # rank's paths; both layouts end in a stub, so no launch gets through (this used to be silent)
    if blocked == 1:
        B, T, H = x.shape
        raise NotImplementedError("the blocked layout is not written yet")
    else:
        T, H = x.shape
        assert T == 128
        raise NotImplementedError("the flat layout is not written yet")


@nki.jit
def one_layout_of_the_input_gets_through(x, blocked: int):
    # the good twin: the flat layout is written, and its path is checked
    if blocked == 1:
        B, T, H = x.shape
        raise NotImplementedError("the blocked layout is not written yet")
    else:
        T, H = x.shape
        assert T == 128 and H <= 512
        t = nl.ndarray((128, H), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, 0:H])
        out = nl.ndarray((128, H), dtype=x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
