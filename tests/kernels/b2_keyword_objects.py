"""An NKIObject dataclass whose class attributes carry no annotation (`offset = None`) is built from keyword
arguments, one attribute per keyword (nl.NKIObject's constructor): the values given are what the kernel reads,
not the class defaults.  (They were dropped, and every use met None: "operator Add on NoneType and int", the
rest of the kernel not understood.)  A plain dataclass given a keyword that is not one of its fields fails in
Python, and is not guessed at."""
from dataclasses import dataclass

import nki
import nki.isa as nisa
import nki.language as nl


@dataclass
class Section(nl.NKIObject):
    index = None  # which section
    offset = None  # its first column
    width = None  # its columns


def section_of(i, width):
    return Section(index=i, offset=i * width, width=width)


@nki.jit
def copy_sections(x):
    assert x.shape == (128, 1024)
    out = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        sp = section_of(i, 256)
        t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, sp.offset:sp.offset + sp.width])
        nisa.dma_copy(dst=out[:, sp.offset:sp.offset + sp.width], src=t)
    return out


@nki.jit
def copy_sections_one_past(x):
    # the bad twin: the last section reads one column past the input
    assert x.shape == (128, 1024)
    out = nl.ndarray((128, 1024), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        sp = section_of(i, 256)
        t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[:, sp.offset + 1:sp.offset + sp.width + 1])  # expect: NKI101 error
        nisa.dma_copy(dst=out[:, sp.offset:sp.offset + sp.width], src=t)
    return out


@dataclass
class PlainSection:
    offset: int


@nki.jit
def plain_dataclass_with_a_keyword_it_lacks(x):
    assert x.shape == (128, 1024)
    sp = PlainSection(offset=0, width=256)  # expect: NKI601 error, NKI902 warning
    t = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, 0:256])
    return t


@dataclass
class Dims(nl.NKIObject):
    rows: int
    cols: int
    spare: int  # the kernels below never give it


@nki.jit
def dims_without_a_field_nothing_reads(x):
    # nl.NKIObject's constructor sets the keywords given; a field left out stays unset, which is fine until
    # something reads it.  The kernel is analysed past the constructor call.
    assert x.shape == (128, 512)
    d = Dims(rows=128, cols=512)
    t = nl.ndarray((d.rows, d.cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x[:, 1:d.cols + 1])  # expect: NKI101 error
    return t


@nki.jit
def dims_field_read_but_never_set(x):
    assert x.shape == (128, 512)
    d = Dims(rows=128, cols=512)
    t = nl.ndarray((d.rows, d.spare), dtype=x.dtype, buffer=nl.sbuf)  # expect: NKI902 warning
    return t
