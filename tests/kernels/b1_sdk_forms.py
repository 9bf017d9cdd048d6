"""Beta-1 forms the SDK's examples use: nl.shared_identity_matrix is a constant in shared HBM (like
nl.shared_constant), which a kernel loads before computing with it (in Beta 2 it is an SBUF tile); a number
passed where an instruction takes a number or a tile; nisa.sequence_bounds returns a (P, 2, N) tile;
nisa.affine_select masks a matmul result in PSUM; a returned tile (a transpose's) feeds a matmul wherever the
compiler placed it; tensor_reduce reduces axes from axis 1.  Parameters that are Python values: checked
against a list of strings, compared in a mask, unpacked into sizes; loop directives, reshape with par_dim,
np.identity with keywords."""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.compiler as ncc
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


@nki.jit
def copy_or_double(x, mode):
    # a parameter checked against a list of strings is a Python value, not an input tensor
    assert mode in ["copy", "double"]
    assert x.shape == (128, 64)
    out = nl.ndarray((128, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.multiply(nl.load(x), 2.0 if mode == "double" else 1.0))
    return out


@nki.jit
def copy_the_first_n_elements(a, n):
    # a parameter compared in a mask is a number (was: a tensor compared element-wise)
    assert a.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    ix = nl.arange(128)[:, None]
    iy = nl.arange(512)[None, :]
    nl.store(out[ix, iy], value=nl.load(a[ix, iy], mask=(512 * ix + iy < n)), mask=(512 * ix + iy < n))
    return out


@nki.jit
def crop_to(x, out_shape):
    # a parameter unpacked into sizes is a tuple of sizes
    p, f = out_shape
    assert p <= 128 and p <= x.shape[0] and f <= x.shape[1]
    out = nl.ndarray(out_shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out[0:p, 0:f], value=nl.load(x[0:p, 0:f]))
    return out


@nki.jit
def crop_to_any_height(x, out_shape):
    p, f = out_shape
    assert p <= x.shape[0] and f <= x.shape[1]
    out = nl.ndarray(out_shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out[0:p, 0:f], value=nl.load(x[0:p, 0:f]))  # expect: NKI201 warning
    return out


@nki.jit
def copy_rows_double_buffered(x):
    # a scheduling directive on the loop changes nothing the checks see
    assert x.shape == (1024, 64)
    out = nl.ndarray((1024, 64), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.sequential_range(8, directives=ncc.multi_buffer(2)):
        nl.store(out[i * 128:(i + 1) * 128, 0:64], value=nl.load(x[i * 128:(i + 1) * 128, 0:64]))
    return out


@nki.jit
def second_quarter_of_each_row(x):
    # reshape with par_dim naming the partition axis: the free axis split 4 x 32
    assert x.shape == (128, 128)
    out = nl.ndarray((128, 32), dtype=x.dtype, buffer=nl.shared_hbm)
    quarters = nl.load(x).reshape((nl.par_dim(128), 4, 32))
    nl.store(out, value=nl.copy(quarters[:, 1, :]))
    return out


@nki.jit
def identity_from_numpy_keywords(x):
    assert x.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    ident = nl.load(nl.shared_constant(np.identity(n=128, dtype=np.int8), dtype=nl.float32))
    nl.store(out, value=nl.multiply(ident, nl.load(x)))
    return out


def grids_for(p, f):
    # the SDK-era kernels' index helper: a grid for an axis longer than 1, the index 0 for one of length 1
    return [nl.arange(p)[:, None], nl.arange(f)[None, :] if f > 1 else 0]


@nki.jit
def copy_a_tile_of_any_width(x):
    P, F = x.shape
    assert P <= 128 and F <= 512
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    i_p, i_f = grids_for(P, F)
    nl.store(out[i_p, i_f], value=nl.load(x[i_p, i_f]))
    return out
