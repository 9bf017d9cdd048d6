"""A hand-written SBUF allocator used in a loop: each iteration takes a scratch tile off the top of a heap and gives it
back.  Its address is rounded down to 4 bytes after each allocation and after each release, so a tile whose row
is not a multiple of 4 bytes leaks 4 bytes per iteration.  The address is followed through the loop (its step is
the first iteration's, proved the same in every iteration), so what the kernel computes from it after the loop is
checked exactly.  Before, it was a value the loop changes in a way not followed, and every check on it was
undecided (NKI901)."""
import nki
import nki.isa as nisa
import nki.language as nl

TOP = 196608


def round_up(value, multiple):
    return (value + multiple - 1) // multiple * multiple


class ScratchHeap(nl.NKIObject):
    def __init__(self, top):
        self.top = top
        self.sizes = []

    def take(self, rows, cols, dtype):
        size = cols * (2 if dtype in (nl.bfloat16, nl.float16) else 4)
        assert self.top >= size, "scratch heap exhausted"
        self.top = round_up(self.top - size - 3, 4)
        self.sizes.append(size)
        return nl.ndarray((rows, cols), dtype=dtype, buffer=nl.sbuf)

    def give_back(self):
        size = self.sizes.pop()
        self.top = round_up(self.top + size - 3, 4)


def staged_copy(x, heap):
    n, m = x.shape
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(n // 32):
        t = heap.take(32, m, x.dtype)
        nisa.dma_copy(dst=t, src=x[32 * i:32 * i + 32, :])
        nisa.dma_copy(dst=out[32 * i:32 * i + 32, :], src=t)
        heap.give_back()
    return out


@nki.jit
def staged_rows_of_whole_words(x):
    n, m = x.shape
    assert n <= 128 and n % 32 == 0 and m <= 512 and m % 2 == 0
    heap = ScratchHeap(TOP)
    out = staged_copy(x, heap)
    used = TOP - heap.top
    a = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a[:n, used:used + m], src=x)
    return out


@nki.jit
def staged_rows_of_any_width(x):
    n, m = x.shape
    assert n <= 128 and n % 32 == 0 and m <= 500
    heap = ScratchHeap(TOP)
    out = staged_copy(x, heap)
    used = TOP - heap.top
    a = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=a[:n, used:used + m], src=x)  # expect: NKI101 warning
    return out
