"""Beta-1 block dimensions: blocks before par_dim rotate through as few buffers as the compiler finds safe."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt


@nki.jit
def sixteen_psum_blocks(a, b):
    # 16 blocks of one bank each: more blocks than banks, but the allocator rotates them.
    assert a.shape == (128, 128) and b.shape == (128, 8192)
    out = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.load(a)
    acc = nl.ndarray((16, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.psum)
    res = nl.ndarray((16, nl.par_dim(128), 512), dtype=nl.float32, buffer=nl.sbuf)
    for j in nl.affine_range(16):
        b_t = nl.load(b[:, j * 512:(j + 1) * 512])
        acc[j] = nisa.nc_matmul(a_t, b_t)
        res[j] = nl.copy(acc[j])
        nl.store(out[:, j * 512:(j + 1) * 512], value=res[j])
    return out


@nki.jit
def block_wider_than_a_bank(a, b):
    # One block of 1024 fp32 per partition is two banks: no rotation makes a matmul result fit.
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.load(a)
    b_t = nl.load(b)
    acc = nl.ndarray((2, nl.par_dim(128), 1024), dtype=nl.float32, buffer=nl.psum)
    acc[0, :, 256:768] = nisa.nc_matmul(a_t, b_t)  # expect: NKI203 error
    nl.store(out, value=nl.copy(acc[0, :, 256:768]))
    return out


@nki.jit
def one_block_too_big(x):
    # A single block of 64K fp32 per partition is 256 KiB: more than SBUF holds on any target.
    assert x.shape == (128, 65536)
    out = nl.ndarray((128, 65536), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((4, nl.par_dim(128), 65536), dtype=nl.float32, buffer=nl.sbuf)  # expect: NKI204 error
    t[0] = nl.load(x)
    nl.store(out, value=t[0])
    return out


@nki.jit
def scale_in_place(x):
    # Beta 1: "an output tensor cannot be an input tensor at the same time".
    assert x.shape == (128, 512)
    t = nl.load(x)
    nl.store(x, value=nl.exp(t))  # expect: NKI304 error
    return x


@nki.jit
def write_into_given_output(x, out):
    # The Beta-1 style of passing the output in: only written, never read.
    assert x.shape == (128, 512) and out.shape == (128, 512)
    nl.store(out, value=nl.exp(nl.load(x)))


@nki.jit
def sum_wide_blocks_in_place(x):
    # `acc += part` accumulates into acc's own buffer: one 32 KiB accumulator and one part are live, not 8
    assert x.shape == (8, 128, 8192)
    out = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 8192), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(8):
        part = nl.load(x[i])
        acc += part
    nl.store(out, value=acc)
    return out


@nki.jit
def sum_wide_blocks_rebinding(x):
    # `acc = acc + part` makes a new tile each iteration; after the loop only the last one is left
    assert x.shape == (8, 128, 8192)
    out = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 8192), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.sequential_range(8):
        part = nl.load(x[i])
        acc = nl.add(acc, part)
    nl.store(out, value=acc)
    return out


@nki.jit
def keep_every_wide_block(x):
    # every iteration's tile is kept in a list and used after the loop: all 8 (256 KiB) are live at once
    assert x.shape == (8, 128, 8192)
    out = nl.ndarray((8, 128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
    parts = []
    for i in nl.affine_range(8):
        parts.append(nl.load(x[i], dtype=nl.float32))  # expect: NKI204 error
    for i in nl.affine_range(8):
        nl.store(out[i], value=parts[i])
    return out


@nki.jit
def scale_in_place_declared_mutable(x: nt.mutable_tensor):
    # the Beta-1 errors page's way to write an input in place: annotate it nt.mutable_tensor
    assert x.shape == (128, 512)
    t = nl.load(x)
    nl.store(x, value=nl.exp(t))
    return x


@nki.jit
def scale_in_place_tensor_mutable(x: nt.tensor[nt.mutable]):
    # the same, spelled as a tensor type with the mutable qualifier
    assert x.shape == (128, 512)
    t = nl.load(x)
    nl.store(x, value=nl.exp(t))
    return x


@nki.trace
def accumulate_into(acc, x):
    # an @nki.trace sub-kernel: its caller hands it a buffer to update, so writing what it read is its job
    assert acc.shape == (128, 512) and x.shape == (128, 512)
    nl.store(acc, value=nl.add(nl.load(acc), nl.load(x)))
