"""A loop's address rounded up to an item size from a table of sizes per dtype: the table split into its values,
the first iteration's step told apart from the steady ones, and the dtype facts a rolled-back trial pass made."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import expr as E
from compiler.frontend import control
from compiler.frontend.builder import KernelBuilder
from nki_verify import analyze_source
from nki_verify.analysis.engine import _python_expression


def _sym(name: str, uid: int) -> E.Sym:
    return E.Sym(name, uid, "shape")


F32, BF16 = E.BSym("<x.dtype == float32>", 901), E.BSym("<x.dtype == bfloat16>", 902)
SIZE = E.ite(F32, 4, E.ite(BF16, 2, 1))  # what an if-chain helper returns for an input's dtype
S, N, K = _sym("s", 1), _sym("n", 2), _sym("k", 3)


def _align(v: E.IntLike, a: E.IntLike) -> E.Expr:
    return E.mul(E.floordiv(E.add(v, E.sub(a, 1)), a), a)


def test_a_table_of_constants_is_found_with_its_values() -> None:
    e = E.add(_align(S, SIZE), E.mul(N, SIZE))
    assert control._tables(e, {S}) == [(SIZE, (1, 2, 4))]
    assert control._size_with_tables(e, control._tables(e, {S})) < E.size(e)
    # a conditional on what the loop changes, or with a branch that is no constant, is no table
    assert control._tables(E.add(S, E.ite(E.le(S, 3), 4, 2)), {S}) == []
    assert control._tables(E.add(S, E.ite(F32, N, 2)), {S}) == []


def test_each_case_replaces_the_table_by_one_of_its_values() -> None:
    cases = control._table_cases([(SIZE, (1, 2, 4))])
    assert sorted(E.lower(E.replace_nodes(SIZE, c)) for c in cases) == [1, 2, 4]
    assert control._table_cases([]) == [{}]


def test_a_division_of_the_table_by_itself_folds_to_its_one_value() -> None:
    # (size - 1) // size is 0 for every size: the step from 0 reads as n*size, not as a division
    e = E.add(_align(0, SIZE), E.mul(N, SIZE))
    folded = control._fold_tables(e, [(SIZE, (1, 2, 4))])
    assert not any(isinstance(x, E.FloorDiv) for x in _nodes(folded))
    for case in control._table_cases([(SIZE, (1, 2, 4))]):
        for n in (0, 3, 17):
            assert E.evaluate(E.replace_nodes(folded, case), {N: n}) == E.evaluate(E.replace_nodes(e, case), {N: n})


def _nodes(e: E.Expr) -> list:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        out.append(x)
        stack.extend(c for c in E.children(x) if isinstance(c, E.Expr))
    return out


def test_a_rounding_by_a_value_the_loop_keeps_counts_only_when_asked_for() -> None:
    now = E.add(_align(S, SIZE), E.mul(N, SIZE))
    assert control._rounds(now, S, {S, K})
    assert not control._rounds(now, S)  # (by constants only)
    assert not control._rounds(E.add(_align(S, K), N), S, {S, K})  # K changes in the loop
    assert not control._rounds(E.add(S, SIZE), S, {S})  # not inside a division


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 2, 4]), st.integers(0, 64), st.integers(0, 40), st.integers(1, 6))
def test_an_aligned_stack_grows_steadily_after_its_first_allocation(size, x0, n, k):
    # the claim the induction proves for each table value: from any start the first allocation rounds the top
    # up, and from there each allocation adds n*size
    top, tops = x0, []
    for _ in range(k + 1):
        tops.append(top)
        top = (top + size - 1) // size * size + n * size
    x1 = (x0 + size - 1) // size * size + n * size
    assert tops[1:] == [x1 + n * size * (i - 1) for i in range(1, k + 1)]


def test_lasting_symbols_and_facts_survive_a_rollback() -> None:
    kb = KernelBuilder("k", "k.py", "beta2", "trn2", itertools.count(1))
    mark = kb.mark()
    kept = kb.new_sym("itemsize(x.dtype)", "shape", 1, 5, lasting=True)
    gone = kb.new_sym("n", "shape", 1)
    kb.assume(E.le(kept, 4), None, "dtype", lasting=True)
    kb.assume(E.le(gone, 9), None, "assert")
    kb.rollback(mark)
    assert [info.sym for info in kb.symbols] == [kept]
    assert [a.cond for a in kb.assumptions] == [E.le(kept, 4)]


ALLOC = '''
import nki
import nki.isa as nisa
import nki.language as nl


def _bytes(dtype):
    if dtype == nl.float32:
        return 4
    if dtype == nl.bfloat16 or dtype == nl.float16:
        return 2
    if dtype == nl.float8_e4m3 or dtype == nl.int8:
        return 1
    assert False, "dtype not supported"


class Stack(nl.NKIObject):
    def __init__(self):
        self.top = 0

    def alloc(self, shape, dtype):
        size = _bytes(dtype)
        self.top = (self.top + size - 1) // size * size
        t = nl.ndarray(shape, dtype=dtype, buffer=nl.sbuf, address=(0, self.top))
        self.top = self.top + shape[1] * size - SHORT
        return t


@nki.jit
def keep(x, y):
    P, F = x.shape
    assert P == 128 and F % 256 == 0 and F <= 8192 and y.shape == (128, 63)
    stack = Stack()
    head = stack.alloc((128, 63), y.dtype)
    nisa.dma_copy(dst=head, src=y)
    tiles = []
    for i in range(F // 256):
        t = stack.alloc((128, 256), x.dtype)
        nisa.dma_copy(dst=t, src=x[:, i * 256:(i + 1) * 256])
        tiles.append(t)
    out = nl.ndarray((128, F), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in range(F // 256):
        nisa.dma_copy(dst=out[:, i * 256:(i + 1) * 256], src=tiles[i])
    return out
'''


def test_tiles_of_an_aligned_stack_kept_in_a_list_are_proved_apart() -> None:
    # y's 63 items leave the top at any residue: x's first tile rounds it up, the others follow steadily
    assert [(d.code, d.line) for d in analyze_source(ALLOC.replace("SHORT", "0"), "a.py").diagnostics] == []


def test_tiles_one_byte_short_overlap_for_a_one_byte_dtype() -> None:
    found = analyze_source(ALLOC.replace("SHORT", "1"), "a.py").diagnostics
    assert [(d.code, d.severity, d.line) for d in found] == [("NKI302", "warning", 24)]
    assert found[0].counterexample_dict()["itemsize(x.dtype)"] == 1


def test_without_the_first_step_apart_the_aligned_stack_is_undecided(monkeypatch) -> None:
    monkeypatch.setattr(control.ControlMixin, "_steady_after_first", lambda self, *a: None)
    found = analyze_source(ALLOC.replace("SHORT", "0"), "a.py").diagnostics
    assert [d.code for d in found] == ["NKI901"]


def test_an_assert_suggestion_calls_no_function_a_kernel_lacks() -> None:
    assert _python_expression("min(a, b) <= 128 and abs(c) < 4")
    assert not _python_expression("itemsize(x.dtype) % 4 == 0")
    assert not _python_expression("a <= ")


def test_a_size_table_that_misses_a_dtype_lets_its_tiles_overlap() -> None:
    # the helper's catch-all says 1 byte for every other dtype: an int32 input's tiles are 4 bytes per item, and
    # the stack hands out a quarter of that
    lax = ALLOC.replace("SHORT", "0").replace('assert False, "dtype not supported"', "return 1")
    found = analyze_source(lax, "a.py").diagnostics
    assert [(d.code, d.line) for d in found] == [("NKI302", 24)]
    assert found[0].counterexample_dict()["itemsize(x.dtype)"] in (2, 4)


PLACED = '''
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def staged(x):
    P, F = x.shape
    assert P == 128 and F == 1000
    dt = DTYPE
    a = nl.ndarray((128, F), dtype=dt, buffer=nl.sbuf, address=(0, 0))
    b = nl.ndarray((128, F), dtype=dt, buffer=nl.sbuf, address=(0, 2048))
    nisa.dma_copy(dst=a, src=x)
    nisa.dma_copy(dst=b, src=x)
    nisa.tensor_tensor(dst=a, data1=a, data2=b, op=nl.add)
    out = nl.ndarray((128, F), dtype=dt, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)
    return out
'''


def test_an_overlap_that_depends_on_a_dtype_chosen_by_a_condition_follows_its_choices() -> None:
    # 1000 items from byte 0 and from byte 2048 overlap for 4-byte items only.  A dtype chosen by a condition on
    # the input's dtype has the size of the choice the condition makes: 2 bytes for a float32 input, the
    # input's own size otherwise, so an int32 input overlaps (a warning naming that size), and none does once
    # the kernel asserts 2- and 4-byte floats only.  A choice the front end cannot name leaves the size
    # undetermined: undecided, naming it.  With the dtype known the overlap is decided.
    def found(dtype: str, before: str = "") -> list:
        src = PLACED.replace("    dt = DTYPE", f"{before}    dt = {dtype}")
        return analyze_source(src, "p.py").diagnostics

    chosen = found("nl.bfloat16 if x.dtype == nl.float32 else x.dtype")
    assert [(d.code, d.line) for d in chosen] == [("NKI302", 12)]
    assert dict(chosen[0].counterexample)["itemsize(x.dtype)"] == 4
    floats = "    assert x.dtype in (nl.float32, nl.bfloat16, nl.float16)\n"
    assert found("nl.bfloat16 if x.dtype == nl.float32 else x.dtype", floats) == []
    unnamed = found("nl.bfloat16 if x.dtype == nl.float32 else nl.mystery_dtype")
    assert [(d.code, d.line) for d in unnamed] == [("NKI901", 12)]
    assert "itemsize(unknown dtype)" in unnamed[0].message
    assert [(d.code, d.line) for d in found("nl.bfloat16")] == []
    assert [(d.code, d.line) for d in found("nl.float32")] == [("NKI302", 12)]
