"""Python state a loop with a symbolic trip count carries from one iteration to the next, as real kernels keep it: a
step chosen by an `if`, a step whose sign the kernel does not fix, a PSUM bank counter taken modulo the bank count,
a running maximum, an allocator that opens and closes a scope in each iteration, a buffer object whose fields a
helper gives new tiles in each iteration, an object with a field the verifier cannot know, a list the loop
assigns into at computed positions (a shuffle mask), a config whose weights each iteration replaces by a view
of its expert while its other fields stay as set before the loop, and a buffer object whose score tile an inner
loop reallocates with each tile's width while its running maximum, allocated under a flag, stays the flag's tile,
and a bias tile a helper allocates in each iteration when it is given a bias and leaves None when it is not, and
a stack allocator that rounds its top up to each allocation's item size (a table of sizes per dtype).
Each was 'not understood' (NKI902) and the rest of the loop was checked with unknown values, or not at all."""
import logging

import nki
import nki.isa as nisa
import nki.language as nl


def _bytes(dtype):
    if dtype == nl.float32 or dtype == nl.int32:
        return 4
    if dtype == nl.bfloat16 or dtype == nl.float16 or dtype == nl.int16:
        return 2
    if dtype == nl.float8_e4m3 or dtype == nl.int8:
        return 1
    return 4


@nki.jit
def step_chosen_by_a_branch(x):
    # the step is min(4, free // need) when there is room for one group and 1 otherwise: each branch is
    # positive under its own condition, which no single question about the merged value sees
    P, F = x.shape
    assert P == 128 and F <= 8192
    size = _bytes(x.dtype)
    window = (min(512, F) - 1) * 2 + (F % 7) * 3 + 1
    free = 196608 - window * size - (F + 127) // 128 * min(512, F) * size
    need = (F + 127) // 128 * size * 128 + min(512, F) * size * 2
    if need > 0 and free >= need:
        group = min(4, free // need)
    else:
        group = 1
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for start in range(0, F, group * 128):
        width = min(group * 128, F - start)
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:, 0:width], src=x[:, start:start + width])
        nisa.dma_copy(dst=out[:, start:start + width], src=t[:, 0:width])
    return out


@nki.jit
def step_of_either_sign(x, rows):
    # a step the kernel never shows positive: the loop is analysed for either sign (it counts down past 0 when
    # the step is negative), so the tile read past column 512 is found
    assert x.shape == (128, 512)
    step = rows.shape[0] - 64
    out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    for s in range(0, 512, step):
        t = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, s:s + 128])  # expect: NKI101 warning
        nisa.dma_copy(dst=out, src=t)
    return out


def _bank_tiles(n):
    banks = []
    for _ in range(n):
        banks.append(nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum))
    return banks


@nki.jit
def psum_banks_round_robin(x):
    # `bank = (bank + 1) % 8` over a symbolic trip count: bank is (i % 8) in iteration i, an index into the 8 tiles
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    banks = _bank_tiles(8)
    out = nl.ndarray((128, F), dtype=nl.float32, buffer=nl.shared_hbm)
    bank = 0
    for i in nl.sequential_range(F // 512):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, i * 512:(i + 1) * 512])
        nisa.tensor_copy(dst=banks[bank], src=t)
        nisa.tensor_copy(dst=t, src=banks[bank])
        nisa.dma_copy(dst=out[:, i * 512:(i + 1) * 512], src=t)
        bank = (bank + 1) % 8
    return out


@nki.jit
def psum_banks_round_robin_one_too_many(x):
    # the counter runs modulo 9 over 8 tiles: iteration 8 indexes past the list
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    banks = _bank_tiles(8)
    out = nl.ndarray((128, F), dtype=nl.float32, buffer=nl.shared_hbm)
    bank = 0
    for i in nl.sequential_range(F // 512):
        t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, i * 512:(i + 1) * 512])
        nisa.tensor_copy(dst=banks[bank], src=t)  # expect: NKI101 warning
        nisa.dma_copy(dst=out[:, i * 512:(i + 1) * 512], src=t)
        bank = (bank + 1) % 9
    return out


@nki.jit
def running_peak_width(x):
    # a running maximum has no closed form: the loop is still checked, and what depends on the maximum after it
    # is said to be undecided, not passed
    P, F = x.shape
    assert P == 128 and F % 128 == 0 and F <= 4096
    peak = 0
    out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=t, value=0.0)
    for i in nl.sequential_range(F // 128):
        width = (i % 3 + 1) * 32
        peak = max(peak, width)
        nisa.dma_copy(dst=t[:, 0:width], src=x[:, i * 128:i * 128 + width])
    scratch = nl.ndarray((128, peak + 1), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=scratch[:, 0:96], src=t[:, 0:96])  # expect: NKI901 warning
    nisa.dma_copy(dst=out[:, 0:96], src=scratch[:, 0:96])  # expect: NKI901 warning
    return out


class ScopedStack(nl.NKIObject):
    """An address allocator: a scope opened in each iteration is closed before the next one."""

    def __init__(self, base):
        self.top = base
        self.scopes = []

    def open_scope(self):
        self.scopes.append(self.top)

    def alloc(self, nbytes):
        addr = self.top
        self.top = self.top + nbytes
        return addr

    def close_scope(self):
        self.top = self.scopes.pop()


@nki.jit
def scoped_allocations_in_a_loop(x):
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    stack = ScopedStack(0)
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.sequential_range(F // 512):
        stack.open_scope()
        a = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf, address=(0, stack.alloc(2048)))
        b = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf, address=(0, stack.alloc(2048)))
        nisa.dma_copy(dst=a, src=x[:, i * 512:(i + 1) * 512])
        nisa.tensor_copy(dst=b, src=a)
        nisa.dma_copy(dst=out[:, i * 512:(i + 1) * 512], src=b)
        stack.close_scope()
    return out


class SectionBuffers(nl.NKIObject):
    # the library's buffer object: fields declared empty, given new tiles by a helper in every section
    tile = None
    scaled = None


def _allocate_section(bufs, width):
    bufs.tile = nl.ndarray((128, width), dtype=nl.float32, buffer=nl.sbuf)
    bufs.scaled = nl.ndarray((128, width), dtype=nl.float32, buffer=nl.sbuf)


@nki.jit
def buffers_given_new_tiles_per_section(x):
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    bufs = SectionBuffers()
    for s in range(F // 512):
        _allocate_section(bufs, 512)
        nisa.dma_copy(dst=bufs.tile, src=x[:, s * 512:(s + 1) * 512])
        nisa.activation(dst=bufs.scaled, op=nl.exp, data=bufs.tile)
        nisa.dma_copy(dst=out[:, s * 512:(s + 1) * 512], src=bufs.scaled)
    return out


@nki.jit
def buffers_given_new_tiles_per_section_one_past(x):
    # each section copies out one column past the end of its scaled tile
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    bufs = SectionBuffers()
    for s in range(F // 512):
        _allocate_section(bufs, 512)
        nisa.dma_copy(dst=bufs.tile, src=x[:, s * 512:(s + 1) * 512])
        nisa.activation(dst=bufs.scaled, op=nl.exp, data=bufs.tile)
        nisa.dma_copy(dst=out[:, s * 512:(s + 1) * 512], src=bufs.scaled[:, 1:513])  # expect: NKI101 error
    return out


class TilePlanner(nl.NKIObject):
    # the library's buffer manager keeps statistics next to its addresses: a field whose value the verifier
    # does not know (here a logger from the standard library) before the loop and after every iteration
    def __init__(self):
        self.offset = 0
        self.log = logging.getLogger("planner")

    def advance(self, width):
        self.offset = self.offset + width
        self.log = logging.getLogger("planner")


@nki.jit
def walk_with_an_unknown_field(x):
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    plan = TilePlanner()
    for j in range(F // 512):
        t = nl.ndarray((P, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, plan.offset:plan.offset + 512])
        nisa.dma_copy(dst=out[:, plan.offset:plan.offset + 512], src=t)
        plan.advance(512)
    return out


@nki.jit
def walk_with_an_unknown_field_one_past(x):
    P, F = x.shape
    assert P == 128 and F % 512 == 0
    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
    plan = TilePlanner()
    for j in range(F // 512):
        t = nl.ndarray((P, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, plan.offset + 1:plan.offset + 513])  # expect: NKI101 error
        nisa.dma_copy(dst=out[:, plan.offset:plan.offset + 512], src=t)
        plan.advance(512)
    return out


@nki.jit
def shuffle_mask_built_in_a_loop(x, shift: int):
    # a list of a fixed length the loop only assigns into, at positions its index and an argument choose: after
    # the loop each item is a value not followed (the list's length is kept), each assignment checked in range
    n, m = x.shape
    assert n <= 32 and m <= 512 and 0 <= shift < 32
    out = nl.ndarray((32, m), dtype=x.dtype, buffer=nl.shared_hbm)
    src = nl.ndarray((32, m), dtype=x.dtype, buffer=nl.sbuf)
    dst = nl.ndarray((32, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=src, value=0.0)
    nisa.memset(dst=dst, value=0.0)
    nisa.dma_copy(dst=src[0:n, :], src=x)
    mask = [255] * 32
    for i in range(min(n, 32 - shift)):
        mask[shift + i] = i
    nisa.nc_stream_shuffle(dst=dst, src=src, shuffle_mask=mask)
    nisa.dma_copy(dst=out, src=dst)
    return out


@nki.jit
def shuffle_mask_written_past_its_end(x, shift: int):
    n, m = x.shape
    assert n <= 32 and m <= 512 and 0 <= shift < 32
    out = nl.ndarray((32, m), dtype=x.dtype, buffer=nl.shared_hbm)
    src = nl.ndarray((32, m), dtype=x.dtype, buffer=nl.sbuf)
    dst = nl.ndarray((32, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.memset(dst=src, value=0.0)
    nisa.memset(dst=dst, value=0.0)
    nisa.dma_copy(dst=src[0:n, :], src=x)
    mask = [255] * 32
    for i in range(n):
        mask[shift + i] = i  # expect: NKI101 warning
    nisa.nc_stream_shuffle(dst=dst, src=src, shuffle_mask=mask)
    nisa.dma_copy(dst=out, src=dst)
    return out


class ExpertView(nl.NKIObject):
    def __init__(self, w, e):
        self.w = w
        self.e = e

    def tile(self):
        return self.w[self.e]


class ExpertConfig(nl.NKIObject):
    def __init__(self, w, transposed):
        self.weights = w
        self.transposed = transposed


@nki.jit
def weights_viewed_per_token(w, idx):
    # each iteration replaces the config's weights by a view of the token's expert; `transposed`, set before the
    # loop, keeps its value: the branch it rules out (whose slice would run past the end) is not taken
    E, P, F = w.shape
    T, K = idx.shape
    assert P <= 128 and F <= 512
    cfg = ExpertConfig(w, 0)
    base = cfg.weights
    out = nl.ndarray((P, F), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=w.dtype, buffer=nl.sbuf)
    for tok in range(T):
        cfg.weights = ExpertView(base, tok % E)
        if cfg.transposed == 1:
            nisa.dma_copy(dst=t[0:P, 0:F], src=cfg.weights.tile()[0:P, 1:F + 1])
        else:
            nisa.dma_copy(dst=t, src=cfg.weights.tile())
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def weights_viewed_per_token_one_past(w, idx):
    E, P, F = w.shape
    T, K = idx.shape
    assert P <= 128 and F <= 512
    cfg = ExpertConfig(w, 0)
    base = cfg.weights
    out = nl.ndarray((P, F), dtype=w.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, F), dtype=w.dtype, buffer=nl.sbuf)
    for tok in range(T):
        cfg.weights = ExpertView(base, tok % E + 1)
        nisa.dma_copy(dst=t, src=cfg.weights.w[cfg.weights.e])  # expect: NKI101 warning
    nisa.dma_copy(dst=out, src=t)
    return out


class RunningTotal(nl.NKIObject):
    def __init__(self, total):
        self.total = total  # allocated before the loop, accumulated into
        self.chunk = None  # a tile of the chunk's width, allocated in each iteration


@nki.jit
def running_total_with_a_tile_per_chunk(x):
    # `chunk` gets a new tile of the chunk's width in each iteration; `total`, which the loop never rebinds,
    # keeps the tile allocated before it, and its accesses are checked
    P, N = x.shape
    assert P <= 128
    acc = RunningTotal(nl.ndarray((P, 128), dtype=x.dtype, buffer=nl.sbuf))
    nisa.memset(dst=acc.total, value=0.0)
    for i in range((N + 127) // 128):
        w = min(128, N - i * 128)
        acc.chunk = nl.ndarray((P, w), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=acc.chunk, src=x[:, i * 128:i * 128 + w])
        nisa.tensor_tensor(dst=acc.total[:, 0:w], data1=acc.total[:, 0:w], data2=acc.chunk, op=nl.add)
    out = nl.ndarray((P, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=acc.total)
    return out


@nki.jit
def running_total_with_a_tile_per_chunk_one_past(x):
    P, N = x.shape
    assert P <= 128
    acc = RunningTotal(nl.ndarray((P, 128), dtype=x.dtype, buffer=nl.sbuf))
    nisa.memset(dst=acc.total, value=0.0)
    for i in range((N + 127) // 128):
        w = min(128, N - i * 128)
        acc.chunk = nl.ndarray((P, w), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=acc.chunk, src=x[:, i * 128:i * 128 + w])
        nisa.tensor_tensor(dst=acc.total[:, 1:w + 1], data1=acc.total[:, 0:w], data2=acc.chunk,  # expect: NKI101 warning
                           op=nl.add)
    out = nl.ndarray((P, 128), dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=acc.total)
    return out


class FlashBuffers(nl.NKIObject):
    # the library's attention buffers: a running maximum allocated per batch only when flash attention is on,
    # and a score tile the inner loop reallocates with the width of each tile (the last one narrower)
    def __init__(self):
        self.running = None
        self.scores = None


@nki.jit
def running_max_over_tiles_when_flagged(x, flags):
    # the inner loop gives `scores` a tile of another width in each iteration: only that field is unknown
    # at the iteration's start; `running`, set under the flag, is still the flag's tile where the flag is read
    B, P, F = x.shape
    assert P == 128 and F <= 4096
    flash = flags.shape[0] % 2 == 1
    out = nl.ndarray((B, P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    bufs = FlashBuffers()
    bufs.scores = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for b in range(B):
        if flash:
            bufs.running = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(dst=bufs.running, value=-3.0e38)
        for i in range((F + 511) // 512):
            w = min(512, F - i * 512)
            bufs.scores = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=bufs.scores, src=x[b, :, i * 512:i * 512 + w])
            if flash:
                part = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_reduce(dst=part, op=nl.maximum, data=bufs.scores, axis=1)
                nisa.tensor_tensor(dst=bufs.running, data1=bufs.running, data2=part, op=nl.maximum)
        if flash:
            nisa.dma_copy(dst=out[b], src=bufs.running)
    return out


@nki.jit
def running_max_over_tiles_when_flagged_one_past(x, flags):
    B, P, F = x.shape
    assert P == 128 and F <= 4096
    flash = flags.shape[0] % 2 == 1
    out = nl.ndarray((B, P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    bufs = FlashBuffers()
    bufs.scores = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    for b in range(B):
        if flash:
            bufs.running = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(dst=bufs.running, value=-3.0e38)
        for i in range((F + 511) // 512):
            w = min(512, F - i * 512)
            bufs.scores = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=bufs.scores, src=x[b, :, i * 512:i * 512 + w])
            if flash:
                part = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
                nisa.tensor_reduce(dst=part, op=nl.maximum, data=bufs.scores, axis=1)
                nisa.tensor_tensor(dst=bufs.running, data1=bufs.running, data2=part, op=nl.maximum)
        if flash:
            nisa.dma_copy(dst=out[b], src=bufs.running[:, 1:2])  # expect: NKI101 warning
    return out


def _copy_tiles(x, out, b):
    # the bias tile is allocated in each iteration only when there is a bias; without one it stays None
    N = x.shape[1]
    bias_tile = None
    for i in range((N + 511) // 512):
        w = min(512, N - i * 512)
        if b is not None:
            bias_tile = nl.ndarray((128, w), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=bias_tile, src=b[:, i * 512:i * 512 + w])
        t = nl.ndarray((128, w), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, i * 512:i * 512 + w])
        if bias_tile is not None:
            nisa.tensor_tensor(dst=t, data1=t, data2=bias_tile, op=nl.add)
        nisa.dma_copy(dst=out[:, i * 512:i * 512 + w], src=t)


@nki.jit
def plain_then_biased(x, b):
    P, N = x.shape
    assert P == 128 and b.shape == x.shape
    plain = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    biased = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    _copy_tiles(x, plain, None)
    _copy_tiles(x, biased, b)
    return plain, biased


@nki.jit
def plain_then_biased_one_past(x, b):
    # the biased call reads the bias one column late: its last tile runs past the end
    P, N = x.shape
    assert P == 128 and b.shape == x.shape
    plain = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    biased = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.shared_hbm)
    _copy_tiles(x, plain, None)
    _copy_tiles(x, biased, b[:, 1:N + 1])  # expect: NKI101 error
    return plain, biased


class AlignedStack(nl.NKIObject):
    """A stack allocator that rounds its top up to the item size of each allocation's dtype, as the library's
    buffer managers do (`_bytes` is a table: 4, 2 or 1 by dtype)."""

    def __init__(self, base):
        self.top = base

    def alloc(self, ncols, dtype, short_by=0):
        size = _bytes(dtype)
        self.top = (self.top + size - 1) // size * size
        addr = self.top
        self.top = self.top + ncols * size - short_by
        return addr


@nki.jit
def aligned_stack_keeps_a_tile_per_iteration(x, y):
    P, F = x.shape
    assert P == 128 and F % 256 == 0 and F <= 8192
    assert y.shape == (128, 63)
    stack = AlignedStack(0)
    # y's tile first: 63 items of 1, 2 or 4 bytes leave the top at any residue, which the first of x's tiles
    # rounds up; from there the top grows by one tile per iteration
    head = nl.ndarray((128, 63), dtype=y.dtype, buffer=nl.sbuf, address=(0, stack.alloc(63, y.dtype)))
    nisa.dma_copy(dst=head, src=y)
    tiles = []
    for i in range(F // 256):
        t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf, address=(0, stack.alloc(256, x.dtype)))
        nisa.dma_copy(dst=t, src=x[:, i * 256:(i + 1) * 256])
        tiles.append(t)
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(F // 256):
        nisa.dma_copy(dst=out[:, i * 256:(i + 1) * 256], src=tiles[i])
    return out


@nki.jit
def aligned_stack_one_byte_short(x, y):
    # each tile's top is one byte short of its end: for a 1-byte dtype the next tile starts on its last byte (for
    # 2 or 4 bytes the rounding up skips it)
    P, F = x.shape
    assert P == 128 and F % 256 == 0 and F <= 8192
    assert y.shape == (128, 63)
    stack = AlignedStack(0)
    head = nl.ndarray((128, 63), dtype=y.dtype, buffer=nl.sbuf, address=(0, stack.alloc(63, y.dtype)))
    nisa.dma_copy(dst=head, src=y)
    tiles = []
    for i in range(F // 256):
        t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf, address=(0, stack.alloc(256, x.dtype, 1)))  # expect: NKI302 warning
        nisa.dma_copy(dst=t, src=x[:, i * 256:(i + 1) * 256])
        tiles.append(t)
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(F // 256):
        nisa.dma_copy(dst=out[:, i * 256:(i + 1) * 256], src=tiles[i])
    return out
