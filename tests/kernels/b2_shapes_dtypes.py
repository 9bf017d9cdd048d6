"""Shape and dtype rules of element-wise instructions, and sizes computed from `dtype.itemsize`."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def add_tiles(a, b):
    assert a.shape == (128, 512) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[0:128, 0:512])
    nisa.dma_copy(dst=tb, src=b[0:128, 0:512])
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
    nisa.dma_copy(dst=out, src=ta)
    return out


@nki.jit
def add_tiles_mismatch(a, b):
    assert a.shape == (128, 512) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    tb = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[0:128, 0:512])
    nisa.dma_copy(dst=tb, src=b[0:128, 0:256])
    nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)  # expect: NKI501 error
    nisa.dma_copy(dst=out, src=ta[0:128, 0:256])  # expect: NKI501 error
    return out


@nki.jit
def bitwise_on_floats(a):
    assert a.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ta, src=a[0:128, 0:512])
    nisa.tensor_tensor(dst=ta, data1=ta, data2=ta, op=nl.bitwise_and)  # expect: NKI502 error
    nisa.dma_copy(dst=out, src=ta)
    return out


@nki.jit
def compute_on_hbm(a):
    assert a.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    staged = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=staged, src=a[0:128, 0:512])
    nisa.tensor_tensor(dst=t, data1=staged, data2=staged, op=nl.add)  # expect: NKI303 error
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def first_column_of_a_narrower_tile(x, n):
    # The tile's allocation says n - 4 >= 1: a launch where it is not fails while tracing, so inputs that make
    # it so are not admissible, like a zero divisor (was: a warning on both slices, with n = 4).
    assert x.shape[0] == 128
    t = nl.ndarray((128, n - 4), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:1], src=x[:, 0:1])
    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t[:, 0:1])
    return out


@nki.jit
def sign_bits_of_a_bf16_input(x):
    # the input's dtype is stated by an assert: a view of a tile of that dtype as int16 keeps its shape
    assert x.shape == (128, 512) and x.dtype == nl.bfloat16
    out = nl.ndarray((128, 512), dtype=nl.int16, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    bits = nl.ndarray((128, 512), dtype=nl.int16, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=bits, data=t.view(nl.int16), op0=nl.bitwise_and, operand0=-32768)
    nisa.dma_copy(dst=out, src=bits)
    return out


@nki.jit
def sign_bits_of_half_a_bf16_input(x):
    assert x.shape == (128, 512) and x.dtype == nl.bfloat16
    out = nl.ndarray((128, 512), dtype=nl.int16, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[:, 0:256], src=x[:, 0:256])
    bits = nl.ndarray((128, 512), dtype=nl.int16, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=bits, data=t.view(nl.int16), op0=nl.bitwise_and, operand0=-32768)  # expect: NKI404 warning
    nisa.dma_copy(dst=out, src=bits)
    return out


@nki.jit
def row_of_64_kib_whatever_the_dtype(a):
    # numpy's `dtype.itemsize`: the same size as the tile's bytes, so 64 KiB per partition for every dtype
    assert a.shape[0] == 128
    width = 65536 // a.dtype.itemsize
    assert a.shape[1] == width
    out = nl.ndarray((128, width), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, width), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def row_of_256_kib_whatever_the_dtype(a):
    assert a.shape[0] == 128
    width = 262144 // a.dtype.itemsize
    assert a.shape[1] == width
    out = nl.ndarray((128, width), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, width), dtype=a.dtype, buffer=nl.sbuf)  # expect: NKI204 error
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=out, src=t)
    return out
