"""Beta-1 forms the SDK's examples use: nl.shared_identity_matrix is a constant in shared HBM (like
nl.shared_constant), which a kernel loads before computing with it (in Beta 2 it is an SBUF tile); a number
passed where an instruction takes a number or a tile; nisa.sequence_bounds returns a (P, 2, N) tile;
nisa.affine_select masks a matmul result in PSUM; a returned tile (a transpose's) feeds a matmul wherever the
compiler placed it; tensor_reduce reduces axes from axis 1."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def transpose_through_the_identity(x):
    assert x.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    identity = nl.shared_identity_matrix(n=128, dtype=nl.float32)
    ident = nl.load(identity)
    xt = nl.load(x)
    # stationary.T @ moving = x.T @ I
    res = nisa.nc_matmul(xt, ident)
    nl.store(out, value=nl.copy(res))
    return out


@nki.jit
def transpose_through_the_identity_not_loaded(x):
    assert x.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    identity = nl.shared_identity_matrix(n=128, dtype=nl.float32)
    xt = nl.load(x)
    res = nisa.nc_matmul(xt, identity)  # expect: NKI303 error
    nl.store(out, value=nl.copy(res))
    return out


@nki.jit
def scale_rows(x, scale):
    # `scale` is a number the caller passes: an ISA operand that takes a number or an on-chip tile
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=nisa.tensor_scalar(t, op0=nl.multiply, operand0=scale))
    return out


@nki.jit
def scale_rows_by_an_input_in_hbm(x, scale):
    # `scale` is sliced: a tensor, in HBM, where the instruction needs an on-chip tile
    assert x.shape == (128, 512) and scale.shape == (128, 1)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(x)
    nl.store(out, value=nisa.tensor_scalar(t, op0=nl.multiply, operand0=scale[0:128, 0:1]))  # expect: NKI303 warning
    return out


@nki.jit
def segment_bounds(segment_ids):
    assert segment_ids.shape == (1, 64)
    out = nl.ndarray((1, 2, 64), dtype=segment_ids.dtype, buffer=nl.shared_hbm)
    ix, iy, iz = nl.mgrid[0:1, 0:2, 0:64]
    bounds = nl.ndarray((1, 2, 64), dtype=segment_ids.dtype, buffer=nl.sbuf)
    bounds[ix, iy, iz] = nisa.sequence_bounds(segment_ids=nl.load(segment_ids))
    nl.store(out, value=bounds)
    return out


@nki.jit
def segment_bounds_into_one_row(segment_ids):
    assert segment_ids.shape == (1, 64)
    out = nl.ndarray((1, 64), dtype=segment_ids.dtype, buffer=nl.shared_hbm)
    bounds = nl.ndarray((1, 64), dtype=segment_ids.dtype, buffer=nl.sbuf)
    bounds[...] = nisa.sequence_bounds(segment_ids=nl.load(segment_ids))  # expect: NKI501 error
    nl.store(out, value=bounds)
    return out


@nki.jit
def causal_mask_on_the_matmul_result(qT, k):
    # Beta 1's affine_select takes the matmul result straight from PSUM (the SDK's Beta-1 attention kernels do)
    assert qT.shape == (128, 128) and k.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(128)[None, :]
    scores = nisa.nc_matmul(nl.load(qT), nl.load(k))
    masked = nisa.affine_select(pred=(i_p >= i_f), on_true_tile=scores, on_false_value=-9984.0, dtype=nl.float32)
    nl.store(out, value=masked)
    return out


@nki.jit
def transpose_straight_into_a_matmul(a, b):
    # Beta 1 places a returned tile where its consumer needs it: the transpose's result feeds the matmul as is
    # (the SDK's Beta-1 flash attention backward does this)
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    acc += nisa.nc_matmul(nisa.nc_transpose(nl.load(a)), nl.load(b))
    nl.store(out, value=nl.copy(acc))
    return out


@nki.jit
def transpose_placed_in_psum_into_a_matmul(a, b):
    # a tile the kernel itself placed in PSUM is bound by the matmul's rule
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
    a_t[...] = nisa.nc_transpose(nl.load(a))
    acc = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
    acc += nisa.nc_matmul(a_t, nl.load(b))  # expect: NKI303 error
    nl.store(out, value=nl.copy(acc))
    return out


@nki.jit
def max_over_the_middle_axis(x):
    # Beta 1's tensor_reduce takes axes from axis 1 (its documentation: "must contain axis 1"), here of a 3-axis
    # tile, as the SDK's Beta-1 flash attention does
    assert x.shape == (128, 4, 64)
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    m = nisa.tensor_reduce(nl.maximum, nl.load(x), axis=(1,), dtype=nl.float32)
    nl.store(out, value=m)
    return out


@nki.jit
def max_over_the_partition_axis(x):
    assert x.shape == (128, 4, 64)
    out = nl.ndarray((4, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    m = nisa.tensor_reduce(nl.maximum, nl.load(x), axis=(0,), dtype=nl.float32)  # expect: NKI501 error
    nl.store(out, value=m)
    return out
