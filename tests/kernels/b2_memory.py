"""On-chip memory: PSUM bank alignment and size, manual placements, capacity, in/out parameters."""
import nki
import nki.isa as nisa
import nki.language as nl

PSUM_BANK_SIZE = 2048


@nki.jit
def psum_on_bank_three(a, b):
    # The migration guide's example: a PSUM tensor on bank 3.
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    b_t = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    bank_id = 3
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, bank_id * PSUM_BANK_SIZE))
    nisa.nc_matmul(dst=acc, stationary=a_t, moving=b_t)
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def psum_misaligned(a, b):
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    b_t = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, 1024))  # expect: NKI301 error
    nisa.nc_matmul(dst=acc, stationary=a_t, moving=b_t)
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def psum_bank_from_argument(a, bank):
    # The bank is a kernel argument: aligned for every value, and in range by the assert.
    assert a.shape == (128, 128) and 0 <= bank < 8
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, bank * PSUM_BANK_SIZE))
    nisa.nc_matmul(dst=acc, stationary=a_t, moving=a_t)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def psum_half_bank_offset(a, half):
    assert a.shape == (128, 128) and 0 <= half < 16
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, half * 1024))  # expect: NKI301 warning
    nisa.nc_matmul(dst=acc, stationary=a_t, moving=a_t)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def matmul_view_across_banks(a, b):
    # acc spans two banks; a 512-wide fp32 result must start on a bank boundary.
    assert a.shape == (128, 128) and b.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    b_t = nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    acc = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=acc[:, 512:1024], stationary=a_t, moving=b_t)
    nisa.nc_matmul(dst=acc[:, 256:768], stationary=a_t, moving=b_t)  # expect: NKI203 error
    res = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc[:, 512:1024])
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def matmul_columns_in_a_loop(a, b):
    # Eight 128-column results in two banks: column block j starts at byte 512*j, never crossing a bank.
    assert a.shape == (128, 128) and b.shape == (128, 1024)
    out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    b_t = nl.ndarray((128, 1024), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    acc = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.psum)
    for j in nl.affine_range(8):
        nisa.nc_matmul(dst=acc[:, j * 128:(j + 1) * 128], stationary=a_t, moving=b_t[:, j * 128:(j + 1) * 128])
    res = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def matmul_columns_straddle(a, b):
    # 384-column blocks: the second one covers bytes 1536..3071 and crosses into the next bank.
    assert a.shape == (128, 128) and b.shape == (128, 768)
    out = nl.ndarray((128, 768), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    b_t = nl.ndarray((128, 768), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    nisa.dma_copy(dst=b_t, src=b)
    acc = nl.ndarray((128, 768), dtype=nl.float32, buffer=nl.psum)
    for j in nl.affine_range(2):
        nisa.nc_matmul(dst=acc[:, j * 384:(j + 1) * 384], stationary=a_t,  # expect: NKI203 error
                       moving=b_t[:, j * 384:(j + 1) * 384])
    res = nl.ndarray((128, 768), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def placed_tiles_per_block(k, n_tiles):
    # The migration guide's block-dimension translation: one bf16 tile of n columns per block.
    P, N = k.shape
    assert P == 128 and N <= 512 and n_tiles <= 8
    out = nl.ndarray((P, N), dtype=k.dtype, buffer=nl.shared_hbm)
    base = 1024
    tiles = []
    for i in range(n_tiles):
        tiles.append(nl.ndarray((P, N), dtype=nl.bfloat16, buffer=nl.sbuf, address=(0, base + i * N * 2)))
    for i in range(n_tiles):
        nisa.dma_copy(dst=tiles[i], src=k)
    for i in range(n_tiles):
        nisa.dma_copy(dst=out, src=tiles[i])
    return out


@nki.jit
def placed_tiles_double_buffered(k):
    # Four blocks rotate through two buffers (`i % 2`): blocks 0 and 2 share a place on purpose.
    P, N = k.shape
    assert P == 128 and N == 512
    out = nl.ndarray((P, N), dtype=k.dtype, buffer=nl.shared_hbm)
    tiles = []
    for i in range(4):
        tiles.append(nl.ndarray((P, N), dtype=nl.bfloat16, buffer=nl.sbuf, address=(0, (i % 2) * N * 2)))
    for i in range(4):
        nisa.dma_copy(dst=tiles[i], src=k)
        nisa.dma_copy(dst=out, src=tiles[i])
    return out


@nki.jit
def placed_tiles_forgot_itemsize(k, n_tiles):
    # The stride is in elements, not bytes: block i+1 starts in the middle of block i.
    P, N = k.shape
    assert P == 128 and N <= 512 and n_tiles <= 8
    out = nl.ndarray((P, N), dtype=k.dtype, buffer=nl.shared_hbm)
    tiles = []
    for i in range(n_tiles):
        tiles.append(nl.ndarray((P, N), dtype=nl.bfloat16, buffer=nl.sbuf,  # expect: NKI302 warning
                                address=(0, i * N)))
    for i in range(n_tiles):
        nisa.dma_copy(dst=tiles[i], src=k)
    for i in range(n_tiles):
        nisa.dma_copy(dst=out, src=tiles[i])
    return out


@nki.jit
def two_placed_tensors_overlap(x):
    assert x.shape == (128, 256)
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))  # expect: NKI302 error
    b = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 512))
    nisa.dma_copy(dst=a, src=x)
    nisa.activation(dst=b, op=nl.exp, data=a)
    nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.add)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def scratch_placed_where_a_later_tile_goes(x):
    # `s` is used and done with before `a`, placed at the same bytes, is first written: a placed tile holds
    # its bytes from its first use, not from its allocation (the library allocates all its tiles up front)
    assert x.shape == (128, 256)
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
    b = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 1024))
    s = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
    nisa.dma_copy(dst=s, src=x)
    nisa.activation(dst=b, op=nl.exp, data=s)
    nisa.dma_copy(dst=a, src=x)
    nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.add)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def scratch_placed_where_a_live_tile_is(x):
    # the same scratch while `a` still holds data it reads afterwards: they overlap
    assert x.shape == (128, 256)
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))  # expect: NKI302 error
    b = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 1024))
    s = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
    nisa.dma_copy(dst=a, src=x)
    nisa.dma_copy(dst=s, src=x)
    nisa.activation(dst=b, op=nl.exp, data=s)
    nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.add)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def transpose_scratch_on_a_rewritten_matmul_bank(a, x):
    # The library's shape: a transpose scratch placed on the PSUM bank that each step's matmul tile takes,
    # used before the step's matmul writes its tile: no value of either is lost, so the shared bank is fine
    assert a.shape == (128, 128) and x.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    x_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 0))
    nisa.dma_copy(dst=a_sb, src=a)
    nisa.dma_copy(dst=x_sb, src=x)
    nisa.memset(dst=res, value=0.0)
    for step in range(3):
        acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 0))
        nisa.nc_transpose(dst=tp, data=x_sb)
        nisa.tensor_copy(dst=x_sb, src=tp)
        nisa.nc_matmul(dst=acc, stationary=a_sb, moving=x_sb)
        nisa.tensor_tensor(dst=res, data1=res, data2=acc, op=nl.add)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def transpose_scratch_between_a_matmul_and_its_read(a, x):
    # the same scratch used after the matmul writes the tile and before the tile is read: the transpose
    # overwrites the product
    assert a.shape == (128, 128) and x.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    x_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 0))  # expect: NKI302 error
    nisa.dma_copy(dst=a_sb, src=a)
    nisa.dma_copy(dst=x_sb, src=x)
    nisa.memset(dst=res, value=0.0)
    for step in range(3):
        acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 0))
        nisa.nc_matmul(dst=acc, stationary=a_sb, moving=x_sb)
        nisa.nc_transpose(dst=tp, data=x_sb)
        nisa.tensor_copy(dst=x_sb, src=tp)
        nisa.tensor_tensor(dst=res, data1=res, data2=acc, op=nl.add)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def scratch_between_two_matmuls_of_one_group(a, x):
    # the scratch falls between two matmuls that accumulate into one group: the second adds onto what the
    # scratch left, not onto the first product
    assert a.shape == (128, 128) and x.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    x_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 2048))  # expect: NKI302 error
    tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 2048))
    nisa.dma_copy(dst=a_sb, src=a)
    nisa.dma_copy(dst=x_sb, src=x)
    nisa.nc_matmul(dst=acc, stationary=a_sb, moving=x_sb, accumulate=False)
    nisa.nc_transpose(dst=tp, data=x_sb)
    nisa.tensor_copy(dst=x_sb, src=tp)
    nisa.nc_matmul(dst=acc, stationary=a_sb, moving=x_sb, accumulate=True)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def scratch_before_a_narrower_rewrite(a, x):
    # the rewrite after the scratch covers half the columns the next read reads: the other half is lost
    assert a.shape == (128, 128) and x.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    x_sb = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 4096))  # expect: NKI302 error
    tp = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 4096))
    nisa.dma_copy(dst=a_sb, src=a)
    nisa.dma_copy(dst=x_sb, src=x)
    nisa.nc_matmul(dst=acc, stationary=a_sb, moving=x_sb)
    nisa.tensor_copy(dst=res, src=acc)
    nisa.nc_transpose(dst=tp, data=x_sb)
    nisa.tensor_copy(dst=x_sb, src=tp)
    nisa.nc_matmul(dst=acc[:, 0:64], stationary=a_sb, moving=x_sb[:, 0:64])
    nisa.tensor_copy(dst=res, src=acc)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def placed_on_other_partitions(x):
    # Same bytes, disjoint partitions: no overlap.
    assert x.shape == (64, 256)
    out = nl.ndarray((64, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((64, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
    b = nl.ndarray((64, 256), dtype=nl.float32, buffer=nl.sbuf, address=(64, 0))
    nisa.dma_copy(dst=a, src=x)
    nisa.activation(dst=b, op=nl.exp, data=a)
    nisa.tensor_tensor(dst=b, data1=a, data2=b, op=nl.add)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def too_much_sbuf(x):
    assert x.shape == (128, 32768)
    out = nl.ndarray((128, 32768), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 32768), dtype=nl.float32, buffer=nl.sbuf)
    b = nl.ndarray((128, 32768), dtype=nl.float32, buffer=nl.sbuf)  # expect: NKI204 error
    nisa.dma_copy(dst=a, src=x)
    nisa.activation(dst=b, op=nl.exp, data=a)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def sbuf_reused_in_sequence(x):
    # 128 KiB each, but a is dead before b is allocated: fits 224 KiB.
    assert x.shape == (128, 32768)
    out = nl.ndarray((128, 32768), dtype=nl.float32, buffer=nl.shared_hbm)
    a = nl.ndarray((128, 32768), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=a, src=x)
    nisa.dma_copy(dst=out, src=a)
    b = nl.ndarray((128, 32768), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=b, src=x)
    nisa.dma_copy(dst=out, src=b)
    return out


@nki.jit
def tile_per_iteration(x):
    # A tile allocated inside the loop body is one buffer per iteration, not one per trip.
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for j in nl.affine_range(F // 512):
        t = nl.ndarray((P, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, j * 512:(j + 1) * 512])
        nisa.dma_copy(dst=out[:, j * 512:(j + 1) * 512], src=t)
    return out


@nki.jit
def too_many_psum_banks(a):
    assert a.shape == (128, 128)
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    a_t = nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.dma_copy(dst=a_t, src=a)
    accs = []
    for i in range(9):
        acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)  # expect: NKI204 error
        nisa.nc_matmul(dst=acc, stationary=a_t, moving=a_t)
        accs.append(acc)
    res = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=res, value=0.0)
    for i in range(9):
        nisa.tensor_tensor(dst=res, data1=res, data2=accs[i], op=nl.add)
    nisa.dma_copy(dst=out, src=res)
    return out


@nki.jit
def scale_in_place(x):
    # Current NKI writes inputs in place (the NKI library's inplace kernels): not reported in Beta 2.
    assert x.shape == (128, 512)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.activation(dst=t, op=nl.exp, data=t)
    nisa.dma_copy(dst=x, src=t)
    return x


@nki.jit
def write_output_argument(x, out):
    # Beta-1 style: the output is passed in and only written.
    assert x.shape == (128, 512) and out.shape == (128, 512)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)


@nki.jit
def placed_past_the_end(x):
    assert x.shape == (128, 1024)
    out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.sbuf, address=(0, 229376 - 2048))  # expect: NKI204 error
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def placed_on_upper_partitions(x):
    assert x.shape == (96, 512)
    out = nl.ndarray((96, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.ndarray((96, 512), dtype=nl.float32, buffer=nl.sbuf, address=(64, 0))  # expect: NKI204 error
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def pool_of_slots_partly_used(x):
    # eight 32 KiB slots (256 KiB per partition, more than trn2's 224 KiB), of which the kernel uses two: the
    # compiler allocates only what instructions touch, so this fits
    assert x.shape == (128, 8192)
    out = nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
    slots = [nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.sbuf) for _ in range(8)]
    for i in range(2):
        nisa.dma_copy(dst=slots[i], src=x)
        nisa.tensor_scalar(dst=slots[i], data=slots[i], op0=nl.multiply, operand0=2.0)
    nisa.tensor_tensor(dst=slots[0], data1=slots[0], data2=slots[1], op=nl.add)
    nisa.dma_copy(dst=out, src=slots[0])
    return out


@nki.jit
def pool_of_slots_all_used(x):
    assert x.shape == (128, 8192)
    out = nl.ndarray((8, 128, 8192), dtype=nl.float32, buffer=nl.shared_hbm)
    slots = [nl.ndarray((128, 8192), dtype=nl.float32, buffer=nl.sbuf) for _ in range(8)]  # expect: NKI204 error
    for i in range(8):
        nisa.dma_copy(dst=slots[i], src=x)
    for i in range(8):
        nisa.dma_copy(dst=out[i], src=slots[i])
    return out
