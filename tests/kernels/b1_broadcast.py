"""Element-wise operands of different ranks broadcast as numpy does: trailing axes aligned."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
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


@nki.jit
def scale_rows_by_their_norm(x):
    # a reduction without keepdims is a tile of partitions only, (128,): `[:, None]` makes it a column, and
    # on its own it lines up with the partitions of a (128, 512) tile (was: (128, 1) padded, so `[:, None]`
    # gave (128, 1, 1) and the product (128, 128, 512): a false error on a correct kernel)
    assert x.shape == (128, 512)
    t = nl.load(x)
    norm = nl.sum(nl.square(t), axis=1)[:, None]
    peak = nl.max(t, axis=1)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.subtract(nl.multiply(t, nl.rsqrt(norm)), peak))
    return out


@nki.jit
def scale_rows_by_their_norm_into_a_half(x):
    assert x.shape == (128, 512)
    t = nl.load(x)
    norm = nl.sum(nl.square(t), axis=1)[:, None]
    out = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.multiply(t, nl.rsqrt(norm)))  # expect: NKI501 error
    return out


@nki.jit
def program_id_as_a_tile(x):
    # nisa.iota of a scalar expression (the program id) is a one-element tile (was: NKI902), reshaped and
    # broadcast as a (1, 1) tile
    assert x.shape == (2, 128) and nl.num_programs(0) <= 2
    pid = nl.program_id(0)
    head = nisa.iota(pid, dtype=nl.int32).reshape((1, 1))
    out = nl.ndarray((2, 128), dtype=nl.int32, buffer=nl.shared_hbm)
    nl.store(out[pid:pid + 1, 0:128], value=head.broadcast_to((1, 128)))
    return out
