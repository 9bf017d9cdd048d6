"""Beta-2 language subset (NKI601, NKI602, NKI604, NKI605, NKI606), names read where nothing assigned them
(NKI607), names nothing in the file defines (NKI608) and operators on Beta-2 tensors (NKI609), each with its clean
twin."""
from dataclasses import dataclass

import neuronxcc.nki.language as old_nl
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def copy_with_dst(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    e = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.activation(dst=e, op=nl.exp, data=t)
    nisa.dma_copy(dst=out, src=e)
    return out


@nki.jit
def copy_returning_a_tile(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    e = nisa.tensor_copy(t)  # expect: NKI606 error
    nisa.dma_copy(dst=out, src=e)
    return out


@nki.jit
def copy_into_a_view_returning(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    e = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    e[:, 0:256] = nisa.tensor_copy(t[:, 0:256])  # expect: NKI606 error
    e[:, 256:512] = nisa.tensor_copy(t[:, 256:512])  # expect: NKI606 error
    nisa.dma_copy(dst=out, src=e)
    return out


@nki.jit
def index_grid(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    i_p, i_f = nl.mgrid[0:128, 0:512]  # expect: NKI602 error
    nisa.dma_copy(dst=t[i_p, i_f], src=x[i_p, i_f])
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def masked_copy(x):
    P, F = x.shape
    assert P <= 128 and F == 512
    out = nl.ndarray((P, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[0:P, :], src=x)
    nisa.dma_copy(dst=out, src=t[0:P, :], mask=None)
    e = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.activation(dst=e[0:P, :], op=nl.exp, data=t[0:P, :], mask=(P > 0))  # expect: NKI602 error
    return out


@nki.jit
def string_buffer(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer='sbuf')  # expect: NKI601 error
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def enum_as_integer(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x, dge_mode=2)  # accepted: the NKI library passes raw dge_mode integers
    nisa.dma_copy(dst=out, src=t, dge_mode=nisa.dge_mode.unknown)
    return out


@nki.jit
def old_namespace_inside(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    e = old_nl.exp(t)  # expect: NKI601 error
    nisa.dma_copy(dst=out, src=e)
    return out


class Tiling(nl.NKIObject):
    def __init__(self, rows: int) -> None:
        self.rows = rows


@dataclass
class PlainTiling:
    rows: int


@nki.jit
def config_object(x):
    assert x.shape == (128, 512)
    cfg = Tiling(128)
    out = nl.ndarray((cfg.rows, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((cfg.rows, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def plain_config_object(x):
    assert x.shape == (128, 512)
    cfg = PlainTiling(128)  # expect: NKI601 error
    out = nl.ndarray((cfg.rows, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((cfg.rows, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def dict_keys(x):
    assert x.shape == (128, 512)
    sizes = {"rows": 128, "cols": 512}
    by_index = {0: 128}  # expect: NKI604 error
    out = nl.ndarray((sizes["rows"], by_index[0] * 4), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def keyword_only(x, *, scale=1):  # expect: NKI601 error
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def list_argument(x, sizes: list):  # expect: NKI601 error
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def countdown(x):
    # The migration guide's dynamic while loop: the body stores, updates and reloads the register.
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    reg = nisa.register_alloc(5)
    while reg:
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t)
        nisa.register_store(cond, reg)
        nisa.tensor_scalar(dst=cond, data=cond, op0=nl.subtract, operand0=1)
        nisa.register_load(reg, cond)
    return out


@nki.jit
def countdown_forgets_to_count(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    cond = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    reg = nisa.register_alloc(5)
    while reg:  # expect: NKI605 error
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t)
        nisa.register_store(cond, reg)
    return out


@nki.jit
def width_of_each_branch(x, wide: bool = False):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    if wide:
        width = 512
    else:
        width = 256
    nisa.dma_copy(dst=t[0:128, 0:width], src=x[0:128, 0:width])
    nisa.dma_copy(dst=out[0:128, 0:width], src=t[0:128, 0:width])
    return out


@nki.jit
def width_misspelt_on_one_branch(x, wide: bool = False):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    if wide:
        width = 512
    else:
        widht = 256  # noqa: F841
    nisa.dma_copy(dst=t[0:128, 0:width], src=x[0:128, 0:width])  # expect: NKI607 error
    nisa.dma_copy(dst=out[0:128, 0:width], src=t[0:128, 0:width])
    return out


@nki.jit
def width_assigned_after_its_use(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t[0:128, 0:width], src=x[0:128, 0:width])  # expect: NKI607 error
    width = 512
    nisa.dma_copy(dst=out[0:128, 0:width], src=t[0:128, 0:width])
    return out


def _store_rows(out, t, rows):
    nisa.dma_copy(dst=out[0:rows, 0:512], src=t[0:rows, 0:512])


def _store_rows_misspelt(out, t, rows):
    nisa.dma_copy(dst=out[0:rows, 0:512], src=t[0:row, 0:512])  # noqa: F821  # expect: NKI608 error


@nki.jit
def copy_through_a_helper(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    _store_rows(out, t, 128)
    return out


@nki.jit
def copy_through_a_helper_with_a_typo(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    _store_rows_misspelt(out, t, 128)
    return out


@nki.jit
def copy_with_a_typo_on_one_branch(x, transpose_first: bool):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if transpose_first:
        nisa.dma_copy(dst=out, src=tile)  # noqa: F821  # expect: NKI608 warning
    else:
        nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def scaled_row_by_instruction(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=2.0)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def scaled_row_by_operator(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    u = t * 2.0  # expect: NKI609 error
    nisa.dma_copy(dst=out, src=u)
    return out


@nki.jit
def row_at_a_tile_held_index(x, rows: int, by_tile: bool):
    assert x.shape == (rows, 512) and rows >= 1
    out = nl.ndarray((1, 512), dtype=x.dtype, buffer=nl.shared_hbm)
    idx = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.memset(dst=idx, value=0)
    one_row = nl.ndarray((1, 512), dtype=x.dtype, buffer=nl.sbuf)
    if by_tile:
        offset = idx * 512  # expect: NKI609 warning
        nisa.dma_copy(dst=one_row, src=x.ap([[512, 1], [1, 512]], offset=offset))
    else:
        nisa.dma_copy(dst=one_row, src=x.ap([[512, 1], [1, 512]], offset=0, scalar_offset=idx, indirect_dim=0))
    nisa.dma_copy(dst=out, src=one_row)
    return out


@nki.jit
def row_sums(x, with_axis: bool):
    # an API called without an argument it requires (or with one too many): Python raises TypeError while
    # tracing, whatever the inputs
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=s, value=0.0)  # (the analysis goes on past a call it cannot bind, which writes nothing)
    if with_axis:
        nisa.tensor_reduce(dst=s, op=nl.add, data=t, axis=1)
    else:
        nisa.tensor_reduce(dst=s, op=nl.add, data=t)  # expect: NKI609 warning
    nisa.dma_copy(dst=out, src=s)
    return out


@nki.jit
def row_sums_always_without_axis(x):
    assert x.shape == (128, 512)
    out = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=s, op=nl.add, data=t, axis=1, negate=False)
    nisa.tensor_reduce(s, nl.add, t, 1, False, False, None, 7)  # expect: NKI609 error
    nisa.dma_copy(dst=out, src=s)
    return out
