"""A layout chosen by a test of the input's dtype (`2 if x.dtype in (float16, bfloat16) else 4`, as library
kernels size PSUM tiles and padding), checked in bytes by the size of that dtype. The verifier knows the
dtype only as a symbol, and its item size as another (1, 2 or 4); it now knows that where the dtype is float16
its item size is 2. Before, the two were unrelated, and a transpose into the first half of a bank read as a
2-byte layout taken at 4 bytes was reported as crossing into the next bank "with x.dtype = float16,
itemsize(x.dtype) = 4". The same view taken for a 4-byte dtype does cross it."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def transpose_into_a_half_bank(x):
    assert x.shape[0] >= 128 and x.shape[1] >= 128
    out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x[0:128, 0:128])
    b = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
    if x.dtype in [nl.float16, nl.bfloat16]:
        # a 2 KiB bank holds 1024 elements of a 2-byte dtype: columns 448..575 are its bytes 896..1151
        t = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=t[0:128, 448:576], data=a)
        nisa.tensor_copy(dst=b, src=t[0:128, 448:576])
    else:
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=t[0:128, 0:128], data=a)
        nisa.tensor_copy(dst=b, src=t[0:128, 0:128])
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def transpose_across_banks_for_four_bytes(x):
    assert x.shape[0] >= 128 and x.shape[1] >= 128
    out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x[0:128, 0:128])
    b = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
    if x.dtype in [nl.float16, nl.bfloat16, nl.float32]:
        # float32's columns 448..575 are bytes 1792..2303: across the end of bank 0
        t = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=t[0:128, 448:576], data=a)  # expect: NKI203 warning
        nisa.tensor_copy(dst=b, src=t[0:128, 448:576])
    else:
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.psum)
        nisa.nc_transpose(dst=t[0:128, 0:128], data=a)
        nisa.tensor_copy(dst=b, src=t[0:128, 0:128])
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def stage_in_a_compute_dtype(x):
    # The tiles' dtype is chosen by a condition (bfloat16 for a float32 input, else the input's own, as library
    # kernels choose a compute dtype): 2 bytes for every input the kernel admits, so the second tile placed
    # 2*n bytes in does not overlap the first (was: NKI901, the tiles' dtype not known, nor its size)
    assert x.shape[0] == 128 and x.shape[1] <= 4096
    assert x.dtype in (nl.float32, nl.bfloat16, nl.float16)
    cdt = nl.bfloat16 if x.dtype == nl.float32 else x.dtype
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray((128, x.shape[1]), dtype=cdt, buffer=nl.sbuf, address=(0, 0))
    b = nl.ndarray((128, x.shape[1]), dtype=cdt, buffer=nl.sbuf, address=(0, x.shape[1] * 2))
    nisa.dma_copy(dst=a, src=x)
    nisa.dma_copy(dst=b, src=x)
    nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.add)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def stage_in_a_compute_dtype_of_any_input(x):
    # Without the assert an int32 input keeps its 4 bytes: the tiles overlap
    assert x.shape[0] == 128 and x.shape[1] <= 4096
    cdt = nl.bfloat16 if x.dtype == nl.float32 else x.dtype
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    a = nl.ndarray((128, x.shape[1]), dtype=cdt, buffer=nl.sbuf, address=(0, 0))  # expect: NKI302 warning
    b = nl.ndarray((128, x.shape[1]), dtype=cdt, buffer=nl.sbuf, address=(0, x.shape[1] * 2))
    nisa.dma_copy(dst=a, src=x)
    nisa.dma_copy(dst=b, src=x)
    nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.add)
    nisa.dma_copy(dst=out, src=b)
    return out
