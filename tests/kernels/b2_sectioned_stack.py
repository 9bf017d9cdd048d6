"""Double buffering with a stack allocator that goes round its sections: each iteration takes its tiles in the
next section, and after the last section the stack is back at the scope's start (the allocator keeps the highest
address a section reached, where the next section starts).  The address of each iteration's tile is followed
through the loop as `start + (i % sections) * section size`, so where it lands is checked exactly: a section
placed past the end of SBUF is found, with the iteration that places it.  Before, the address was a value the
loop changes in a way not followed, and every check on it was undecided (NKI901)."""
import nki
import nki.isa as nisa
import nki.language as nl


def itemsize(dtype):
    return 4 if dtype == nl.float32 else 2


class Section(nl.NKIObject):
    def __init__(self, start, count):
        self.start = start
        self.count = count
        self.current = 0
        self.high = start


class SectionStack(nl.NKIObject):
    def __init__(self, base):
        self.addr = base
        self.scopes = []

    def open(self, count):
        self.scopes.append(Section(self.addr, count))

    def take(self, nbytes):
        at = self.addr
        self.addr = self.addr + nbytes
        top = self.scopes[-1]
        top.high = max(top.high, self.addr)
        return at

    def next_section(self):
        top = self.scopes[-1]
        top.current = top.current + 1
        if top.current == top.count:
            top.current = 0
            self.addr = top.start
            top.high = top.start
        else:
            self.addr = top.high

    def close(self):
        top = self.scopes.pop()
        self.addr = top.start


class RingStack(SectionStack):
    """The same allocator with its counter written the other way round."""

    def next_section(self):
        top = self.scopes[-1]
        top.current = top.current + 1 if top.current + 1 < top.count else 0
        if top.current == 0:
            self.addr = top.start
            top.high = top.start
        else:
            self.addr = top.high


@nki.jit
def rows_double_buffered(x):
    n, m = x.shape
    assert n % 128 == 0 and m <= 8192
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    stack = SectionStack(1024)
    stack.open(2)
    for i in range(n // 128):
        t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf, address=(0, stack.take(m * itemsize(x.dtype))))
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        stack.next_section()
    stack.close()
    return out


@nki.jit
def rows_double_buffered_too_wide(x):
    n, m = x.shape
    assert n % 128 == 0 and m <= 32768
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    stack = SectionStack(1024)
    stack.open(2)
    for i in range(n // 128):
        # (a section fits; the second one starts past the first, and two of them do not fit)
        t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf,  # expect: NKI204 warning
                       address=(0, stack.take(m * itemsize(x.dtype))))
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        stack.next_section()
    stack.close()
    return out


def copy_rows(x, out, stack, width):
    n, m = x.shape
    for i in range(n // 128):
        t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf, address=(0, stack.take(width)))
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        stack.next_section()


@nki.jit
def two_passes_through_the_same_sections(x):
    n, m = x.shape
    assert n % 128 == 0 and m <= 8192
    first = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    second = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    stack = SectionStack(1024)
    stack.open(3)
    copy_rows(x, first, stack, m * itemsize(x.dtype))
    copy_rows(x, second, stack, m * itemsize(x.dtype))  # (it starts in the section the first pass ended in)
    stack.close()
    return first, second


@nki.jit
def second_pass_past_the_end(x):
    n, m = x.shape
    assert n % 128 == 0 and m <= 8192
    first = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    second = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    stack = SectionStack(1024)
    stack.open(3)
    copy_rows(x, first, stack, m * itemsize(x.dtype))
    # (after the first pass the stack is at a section of it, 0, 1 or 2 sections past the start)
    t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf,  # expect: NKI204 warning
                   address=(0, stack.addr + 200000))
    nisa.dma_copy(dst=t, src=x[0:128, :])
    nisa.dma_copy(dst=second[0:128, :], src=t)
    stack.close()
    return first, second


@nki.jit
def sections_of_alternating_widths(x):
    n, m = x.shape
    assert n % 128 == 0 and m <= 4096
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    stack = SectionStack(1024)
    stack.open(3)
    for i in range(n // 128):
        # (three sections, tiles one or two rows wide in turn: no section size is the same in every iteration, so
        # where a tile lands is not followed, and not guessed either)
        w = m * itemsize(x.dtype) * (1 + i % 2)
        t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf,  # expect: NKI901 warning
                       address=(0, stack.take(w)))
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        stack.next_section()
    stack.close()
    return out


@nki.jit
def rows_triple_buffered_too_wide(x):
    n, m = x.shape
    assert n % 128 == 0 and m <= 20000
    out = nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    stack = RingStack(1024)
    stack.open(3)
    for i in range(n // 128):
        # (two sections fit; the third does not)
        t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf,  # expect: NKI204 warning
                       address=(0, stack.take(m * itemsize(x.dtype))))
        nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)
        stack.next_section()
    stack.close()
    return out
