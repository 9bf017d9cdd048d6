"""Kernels a reader recognises from the host code around them, even where the analysis never runs it: a
kernel in a class body, a kernel wrapped by a launcher that takes it as a parameter, under another name,
or with `nki.jit(...)(f)`; and a launcher nobody calls."""
import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

USE_SIMULATOR = True


class Ops:
    @staticmethod
    @nki.jit
    def copy_rows(src):
        dst = nl.ndarray((256, 64), dtype=src.dtype, buffer=nl.shared_hbm)
        t = nl.load(src[0:256, 0:64])  # expect: NKI201 error, NKI101 warning, NKI101 warning
        nl.store(dst[0:256, 0:64], value=t)
        return dst


def scale_kernel(x, out):
    rows, cols = x.shape
    assert tuple(out.shape) == (rows, cols)  # the rank of `out` is the tuple's, not a guess
    t = nl.load(x[0:128, 0:cols])  # expect: NKI101 warning
    nl.store(out[0:128, 0:cols + 1], value=t)  # expect: NKI101 error, NKI101 warning, NKI501 error


def shift_kernel(x, out):
    t = nl.load(x[0:128, 1:513])  # expect: NKI101 warning, NKI101 warning
    nl.store(out[0:128, 0:512], value=t)  # expect: NKI101 warning, NKI101 warning


def other_kernel(x, out):
    t = nl.load(x[0:129, 0:8])  # expect: NKI201 error, NKI101 warning, NKI101 warning
    nl.store(out[0:129, 0:8], value=t)  # expect: NKI101 warning, NKI101 warning


def good_copy(x, out):
    assert x.shape == (128, 512) and tuple(out.shape) == (128, 512)
    t = nl.load(x[0:128, 0:512])
    nl.store(out[0:128, 0:512], value=t)


def never_launched(x, out):  # a helper nobody wraps: not a kernel
    t = nl.load(x[0:999, 0:8])
    nl.store(out[0:999, 0:8], value=t)


def run_on_device(kernel, *arrays):  # (a launcher whose kernel parameter is passed by keyword too)
    compiled = nki.jit(kernel, platform_target="trn2")
    return compiled(*arrays)


def main():
    x = np.zeros((128, 512), dtype=np.float32)
    if USE_SIMULATOR:
        return None
    run_on_device(scale_kernel, x, x)
    run_on_device(kernel=good_copy)
    fn = shift_kernel if x.shape[0] else other_kernel
    nki.simulate_kernel(nki.jit(fn), x, x)
    return nki.jit(platform_target="trn2")(other_kernel)


@nki.jit
def first_page_rows(pages):
    # pages: (layers, n_pages, page_rows, cols); the launcher below reads only pages.shape[1], which says
    # the rank is at least 2, not 2: the kernel's own unpacking settles it (was: "4 indices for a tensor of
    # rank 2", an error)
    layers, n_pages, page_rows, cols = pages.shape
    assert page_rows <= 128 and cols <= 512
    out = nl.ndarray((page_rows, cols), dtype=pages.dtype, buffer=nl.shared_hbm)
    t = nl.load(pages[0, 0, 0:page_rows, 0:cols])
    nl.store(out[0:page_rows, 0:cols], value=t)
    return out


def run_first_page(pages):
    if pages.shape[1] == 0:
        return None
    return first_page_rows(pages)


def make_row_copier(rows):
    # a kernel factory nobody calls here: the kernel is analysed for every value of `rows`, a symbol like an
    # input (was: "0 kernels verified", silently)
    @nki.jit
    def copy_rows_of(src):
        assert 1 <= rows <= 128 and src.shape == (rows, 64)
        dst = nl.ndarray((rows, 64), dtype=src.dtype, buffer=nl.shared_hbm)
        t = nl.load(src[0:rows, 0:64])
        nl.store(dst[0:rows, 0:64], value=t)
        return dst

    def launch(src):
        return copy_rows_of(src)
    return launch, rows


def make_pair_copier(rows):
    @nki.jit
    def copy_row_pairs_of(src):
        assert 1 <= rows <= 128 and src.shape == (2 * rows, 64)
        dst = nl.ndarray((2 * rows, 64), dtype=src.dtype, buffer=nl.shared_hbm)
        t = nl.load(src[0:2 * rows, 0:64])  # expect: NKI201 warning
        nl.store(dst[0:2 * rows, 0:64], value=t)
        return dst
    return copy_row_pairs_of


@nki.jit
def add_heads(q, v):
    # launched below with arrays whose shapes the launcher never reads: their ranks are guesses, corrected by
    # the kernel's own comparison (was: "this assert fails for every input", and nothing checked)
    b, h, s = q.shape
    assert tuple(v.shape) == (b, h, s, 1) and s <= 512
    out = nl.ndarray((h, s), dtype=q.dtype, buffer=nl.shared_hbm)
    t = nl.load(q[0, 0:h, 0:s])  # expect: NKI201 warning
    nl.store(out[0:h, 0:s], value=t)
    return out


def run_add_heads(q, v):
    return add_heads(q=q, v=v)
