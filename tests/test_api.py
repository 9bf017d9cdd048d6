"""The analysis API: one entry point, options, overlays, launch contexts, targets."""

from __future__ import annotations

import os
import textwrap

from nki_verify import Options, analyze_source, verify_source


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip()


KERNEL = src("""
    import nki
    import nki.isa as nisa
    import nki.language as nl

    @nki.jit
    def k(x):
        P, F = x.shape
        assert P <= 128
        t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[0:P, 0:512])
        return t
""")


def test_symbolic_shapes_give_a_warning_with_a_suggestion() -> None:
    diags = verify_source(KERNEL, "/tmp/k.py")
    (d,) = [d for d in diags if d.code == "NKI101"]
    assert d.severity == "warning"
    assert dict(d.counterexample)["x.shape[1]"] < 512
    assert d.suggestion == "assert x.shape[1] >= 512"


def test_fixed_shapes_decide_the_severity() -> None:
    ok = verify_source(KERNEL, "/tmp/k.py", Options(shapes={"k": {"x": ((128, 512), None)}}))
    assert ok == []
    bad = verify_source(KERNEL, "/tmp/k.py", Options(shapes={"k": {"x": ((128, 256), None)}}))
    assert sorted((d.code, d.severity) for d in bad) == [("NKI101", "error"), ("NKI501", "error")]


def test_overlays_are_read_instead_of_the_disk(tmp_path) -> None:
    main = tmp_path / "main.py"
    main.write_text(src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl
        from helper import ROWS

        @nki.jit
        def k(x):
            assert x.shape == (128, 512)
            t = nl.ndarray((ROWS, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[0:ROWS, :])
            return t
    """))
    (tmp_path / "helper.py").write_text("ROWS = 128\n")
    assert verify_source(main.read_text(), str(main)) == []
    overlay = {str(tmp_path / "helper.py"): "ROWS = 256\n"}
    diags = verify_source(main.read_text(), str(main), Options(overlays=overlay))
    assert {d.code for d in diags} >= {"NKI101", "NKI201"}


def test_kernel_platform_target_and_explicit_target() -> None:
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit(platform_target="trn3")
        def k(x):
            assert x.shape == (128, 512)
            t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x)
            nisa.exponential(dst=t, src=t)
            return t
    """)
    assert verify_source(text, "/tmp/k.py") == []
    diags = verify_source(text, "/tmp/k.py", Options(target="trn2", target_explicit=True))
    assert [(d.code, d.severity) for d in diags] == [("NKI503", "error")]


def test_unknown_target_instruction_is_a_warning_by_default() -> None:
    text = KERNEL.replace("return t", "nisa.exponential(dst=t, src=t)\n    return t")
    diags = verify_source(text, "/tmp/k.py", Options(shapes={"k": {"x": ((128, 512), None)}}))
    assert [(d.code, d.severity) for d in diags] == [("NKI503", "warning")]


def test_result_carries_kernels_and_stats() -> None:
    res = analyze_source(KERNEL, "/tmp/k.py")
    assert [k.name for k in res.kernels] == ["k"]
    assert res.kernels[0].obligations > 0
    assert res.ir and res.ir[0].name == "k"


def test_files_without_nki_are_skipped_quickly() -> None:
    assert verify_source("x = 1\n", "/tmp/plain.py") == []


def test_grid_bounds_program_ids() -> None:
    text = src("""
        import neuronxcc.nki as nki
        import neuronxcc.nki.language as nl

        @nki.jit
        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            i = nl.program_id(0) * 128 + nl.arange(128)[:, None]
            j = nl.arange(512)[None, :]
            nl.store(out[i, j], value=nl.load(a[i, j]))
            return out
    """)
    opts = Options(shapes={"k": {"a": ((256, 512), None)}}, grids={"k": (2,)})
    assert verify_source(text, "/tmp/k.py", opts) == []
    opts = Options(shapes={"k": {"a": ((256, 512), None)}}, grids={"k": (3,)})
    diags = verify_source(text, "/tmp/k.py", opts)
    assert diags and all(d.code == "NKI101" and d.severity == "error" for d in diags)
    assert dict(diags[0].counterexample)["program_id(0)"] == 2


def test_a_finding_inside_a_helper_names_the_calls_that_reach_it() -> None:
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        def tile(shape, dtype):
            return nl.ndarray(shape, dtype=dtype, buffer=nl.sbuf)

        def load(x, rows):
            t = tile((rows, x.shape[1]), x.dtype)
            nisa.dma_copy(dst=t, src=x[0:rows, :])
            return t

        @nki.jit
        def k(x):
            assert x.shape == (256, 64)
            a = load(x, 128)
            b = load(x, 256)
            return b
    """)
    (d,) = [d for d in verify_source(text, "/tmp/k.py") if d.code == "NKI201"]
    assert d.line == 6 and "'t'" in d.message  # named after the caller's variable, not the helper's line
    assert [(n.location.line, n.message) for n in d.notes[:2]] == [(9, "reached through this call"),
                                                                    (17, "reached through this call")]


COPIES = src("""
    import nki
    import nki.isa as nisa
    import nki.language as nl

    def load_cols(x, t):
        for i in nl.sequential_range(x.shape[1] // 512):
            nisa.dma_copy(dst=t, src=x[0:128, i * 512 + 1:(i + 1) * 512 + 1])

    @nki.jit
    def k(x):
        assert x.shape[0] == 128
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        load_cols(x, t)
        load_cols(x, t)
        load_cols(x, t)
        return t
""")


def test_a_finding_in_a_helper_called_again_is_reported_once() -> None:
    # the later calls' loops are labelled `i@LINE`: the same finding at the same place, not another one
    (d,) = [d for d in verify_source(COPIES, "/tmp/k.py") if d.code == "NKI101"]
    assert (d.line, d.severity) == (7, "warning")
    assert "512*i + 1" in d.message  # the copy that names the loop as written (not `i@6`)


def test_asserts_no_input_satisfies_are_said_not_verified() -> None:
    # `tile` merged from an if/elif chain: 64 only for 32 < n <= 64, which the same assert excludes
    text = src("""
        import nki
        import nki.language as nl

        @nki.jit
        def k(x):
            n, m = x.shape
            if n <= 32:
                tile = 32
            elif n <= 64:
                tile = 64
            else:
                tile = 128
            assert m % tile == 0
            assert tile == 64 and n > 64
            big = nl.ndarray((999, 1), dtype=nl.float32, buffer=nl.sbuf)
            return nl.ndarray((n, m), dtype=x.dtype, buffer=nl.shared_hbm)
    """)
    (d,) = verify_source(text, "/tmp/k.py")  # and not the 999 partitions: nothing can be checked
    assert (d.code, d.line) == ("NKI901", 14)
    assert "every input the kernel's earlier conditions admit" in d.message
    # a raise every launch reaches (a loop over a non-empty axis)
    stub = src("""
        import nki
        import nki.language as nl

        @nki.jit
        def k(x):
            out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
            for b in nl.affine_range(x.shape[0]):
                raise NotImplementedError("fill in the kernel")
            return out
    """)
    (d,) = verify_source(stub, "/tmp/k.py")
    assert (d.code, d.line) == ("NKI901", 5) and "every path through this kernel fails" in d.message
    # conditions some input satisfies: checked as usual
    fine = text.replace("assert tile == 64 and n > 64", "assert tile == 64 or n > 64")
    assert [d.code for d in verify_source(fine, "/tmp/k.py")] == ["NKI201"]


def test_sizes_named_in_a_shape_comparison_are_integers() -> None:
    # `d` is never used in arithmetic: that it is a size shows in `q.shape == (n, d)` and the tile's shape
    text = src("""
        import math
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(q, n, d):
            assert q.shape == (n, d)
            assert d <= 512
            scale = 1.0 / math.sqrt(float(d))
            t = nl.ndarray((128, d), dtype=q.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=q[0:128, 0:d])
            return t
    """)
    diags = verify_source(text, "/tmp/k.py")
    assert [(d.code, d.line, d.severity) for d in diags] == [("NKI101", 12, "warning")]  # only for n < 128
    assert "d.shape" not in diags[0].message


def test_a_parameter_tested_for_truth_is_a_flag() -> None:
    # `if flag:` on a parameter with no annotation or default: a flag, false in some launches (were it the
    # tensor first guessed, the test would always pass and the tile always be written)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x, flag):
            assert x.shape == (128, 512)
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            if flag:
                nisa.dma_copy(dst=t, src=x)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    assert (d.code, d.line, d.severity) == ("NKI404", 12, "warning") and dict(d.counterexample)["flag"] == 0
    assert verify_source(text.replace("    if flag:", "    if flag or True:"), "/tmp/k.py") == []


def test_a_suggested_lower_bound_is_the_least_that_works() -> None:
    # without `init`, the accumulator is first written in the loop's second iteration: with one tile of rows it
    # is stored unwritten.  The bound suggested is the least K that fixes it, said as the kernel's own
    # `K % 128 == 0` makes it (not a constant tried on the way, `K > 510`)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x, init: bool):
            K, F = x.shape
            assert K % 128 == 0 and F == 512
            out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            for i in nl.sequential_range(K // 128):
                t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
                nisa.dma_copy(dst=t, src=x[i * 128:(i + 1) * 128, :])
                if i == 0:
                    if init:
                        nisa.tensor_copy(dst=acc, src=t)
                else:
                    nisa.tensor_tensor(dst=acc, data1=acc, data2=t, op=nl.add)
            nisa.dma_copy(dst=out, src=acc)
            return out
    """)
    diags = verify_source(text, "/tmp/k.py")
    assert [(d.code, d.line) for d in diags] == [("NKI404", 18), ("NKI404", 19)]
    assert diags[1].suggestion == "assert x.shape[0] >= 256", diags[1].suggestion


def test_a_dimension_is_equated_only_with_one_that_bounds_the_check_s_loop() -> None:
    # x[i] for i in range(p): x.shape[0] == p is the precondition; z.shape[0], which the kernel only bounds by
    # p, would prove the check as well if equated to x.shape[0], but bounds no loop of it and is not offered
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def rows(z, x, p: int):
            assert z.shape[0] >= p and x.shape[1] == 512 and z.shape[1] == 512
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.memset(dst=t, value=0.0)
            for i in nl.sequential_range(p):
                nisa.dma_copy(dst=t[0:1, :], src=x[i:i + 1, :])
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    assert (d.code, d.suggestion) == ("NKI101", "assert x.shape[0] == p"), d.suggestion


def test_keys_read_with_the_queries_strides_suggest_the_same_dimensions() -> None:
    # the loop runs over q's batch and reads k with q's row length: the help is that k has q's shape, axis by
    # axis (the solver alone gives up on the flattened bound; with k's dimensions replaced by q's, the access's
    # digits prove it)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(q, k):
            B, S, D = q.shape
            Bk, Sk, Dk = k.shape
            assert S <= 128 and D <= 512
            out = nl.ndarray((B, S, D), dtype=q.dtype, buffer=nl.shared_hbm)
            for b in range(B):
                t = nl.ndarray((S, D), dtype=q.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=t, src=k.ap([[D, S], [1, D]], offset=b * S * D))
                nisa.dma_copy(dst=out[b], src=t)
            return out
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    assert (d.code, d.line) == ("NKI102", 13)
    assert d.suggestion == "assert (q.shape[0] == k.shape[0]) and (q.shape[1] == k.shape[1]) and " \
                           "(q.shape[2] == k.shape[2])", d.suggestion


def test_a_finding_that_depends_on_an_input_dtype_says_which() -> None:
    path = os.path.join(os.path.dirname(__file__), "kernels", "b2_dtype_tables.py")
    diags = verify_source(open(path).read(), path, Options(kernels=("two_banks_of_elements",)))
    (d,) = [d for d in diags if d.code == "NKI101"]
    # 4096 // bytes columns exceed the row of 2048 only for a one-byte dtype: none of the table's wider ones
    assert [n.message for n in d.notes if n.message.startswith("with ")] == \
        ["with x.dtype not float16, bfloat16, float32"], d.notes


def test_a_finding_for_a_dtype_no_test_names_lists_those_of_its_size() -> None:
    # The kernel tests only for float32; the overlap needs 4-byte items: the note names the 4-byte dtypes left
    path = os.path.join(os.path.dirname(__file__), "kernels", "b2_dtype_itemsize.py")
    diags = verify_source(open(path).read(), path, Options(kernels=("stage_in_a_compute_dtype_of_any_input",)))
    (d,) = [d for d in diags if d.code == "NKI302"]
    (note,) = [n.message for n in d.notes if n.message.startswith("with ")]
    assert note.startswith("with x.dtype one of ") and note.endswith(" (4 bytes; not float32)"), note
    assert {"int32", "uint32", "tfloat32"} <= set(note[len("with x.dtype one of "):].split(" (")[0].split(", ")), note


def test_parts_of_a_check_over_the_inputs_alone_are_candidates() -> None:
    from compiler import expr as E
    from nki_verify.analysis.engine import _input_atoms

    d, n, i = E.Sym("d", 1, "shape"), E.Sym("n", 2, "shape"), E.Sym("i", 3, "loop")
    even = E.eq(E.mod(d, 2), 0)
    goal = E.bor(even, E.eq(E.minimum(8, E.sub(n, i)), 0))
    assert _input_atoms(goal, lambda s: s in (d, n)) == [even]
    assert _input_atoms(even, lambda s: True) == []  # the check itself is a candidate already


UNINITIALISED = src("""
    import nki
    import nki.isa as nisa
    import nki.language as nl

    @nki.jit
    def k(x):
        P, F = x.shape
        assert P <= 128 and F <= 512
        out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[:, 0:F // 2], src=x[:, 0:F // 2])
        if F > 256:
            nisa.dma_copy(dst=out, src=t)
        else:
            nisa.dma_copy(dst=out[:, 0:F // 2], src=t[:, 0:F // 2])
        return out
""")


def test_uninitialised_read_checks_share_a_query_budget(monkeypatch) -> None:
    """Past the per-kernel query budget the (quiet) NKI404 checks are skipped and counted, never reported
    as findings or as NKI901; within it the same kernel has its finding."""
    from nki_verify.analysis import engine

    full = analyze_source(UNINITIALISED, "k.py")
    assert [d.code for d in full.diagnostics] == ["NKI404"] and full.kernels[0].skipped == 0
    monkeypatch.setattr(engine, "QUIET_QUERY_BUDGET", 0)
    starved = analyze_source(UNINITIALISED, "k.py")
    assert starved.diagnostics == [] and starved.kernels[0].skipped >= 1


def test_front_end_decisions_past_their_budget_explore_both_branches(monkeypatch) -> None:
    """With no solver calls left for branch conditions the front end explores both branches of what it
    cannot settle by intervals: the findings are the same (infeasible paths yield nothing)."""
    from nki_verify.analysis import oracle

    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x):
            P, F = x.shape
            assert P <= 128 and F % 128 == 0
            out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
            for j in nl.affine_range(F // 128):
                t = nl.ndarray((P, 128), dtype=x.dtype, buffer=nl.sbuf)
                if F >= 128:
                    nisa.dma_copy(dst=t, src=x[:, j * 128:(j + 1) * 128])
                else:
                    nisa.dma_copy(dst=t, src=x[:, j * 128:(j + 2) * 128])
                nisa.dma_copy(dst=out[:, j * 128:(j + 1) * 128], src=t)
            return out
    """)
    calls = []
    solve = oracle.SolverOracle._solve
    monkeypatch.setattr(oracle.SolverOracle, "_solve", lambda self, *a: calls.append(a) or solve(self, *a))
    decided = analyze_source(text, "k.py")
    assert calls, "the branch needs the solver (F >= 128 follows from F % 128 == 0 only)"
    init = oracle.SolverOracle.__init__

    def no_budget(self, *args, **kws) -> None:
        init(self, *args, **kws)
        self.budget = 0

    monkeypatch.setattr(oracle.SolverOracle, "__init__", no_budget)
    calls.clear()
    undecided = analyze_source(text, "k.py")
    assert not calls
    assert [(d.code, d.location.line) for d in undecided.diagnostics] == \
        [(d.code, d.location.line) for d in decided.diagnostics]


def test_the_front_end_budget_of_solver_calls_is_per_kernel(monkeypatch) -> None:
    """Each kernel of a file gets the whole budget of solver calls for branch conditions: what the file's earlier
    kernels spent does not change what a later one decides (it did with one budget per file: a kernel's findings
    depended on which kernels of its file were analysed before it, and on --kernel)."""
    from nki_verify.analysis import oracle

    kernel = """
        @nki.jit
        def {name}(x):
            P, F = x.shape
            assert P <= 128 and F % 128 == 0
            out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((P, 128), dtype=x.dtype, buffer=nl.sbuf)
            if F >= 128:
                nisa.dma_copy(dst=t, src=x[:, 0:128])
            else:
                nisa.dma_copy(dst=t, src=x[:, 0:{end}])
            nisa.dma_copy(dst=out[:, 0:128], src=t)
            return out
    """
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl
    """) + src(kernel.format(name="first", end=256)) + src(kernel.format(name="second", end=512))
    init = oracle.SolverOracle.__init__

    def one_call(self, *args, **kws) -> None:
        init(self, *args, **kws)
        self.budget = 1

    monkeypatch.setattr(oracle.SolverOracle, "__init__", one_call)
    calls = []
    solve = oracle.SolverOracle._solve
    monkeypatch.setattr(oracle.SolverOracle, "_solve", lambda self, *a: calls.append(a) or solve(self, *a))
    both = analyze_source(text, "k.py")
    assert len(calls) == 2, "each kernel asks the solver once (with one budget per file, the second could not)"
    calls.clear()
    alone = analyze_source(text, "k.py", Options(kernels=("second",)))
    assert len(calls) == 1
    assert [k.name for k in both.kernels] == ["first", "second"]
    assert [(d.code, d.location.line) for d in both.diagnostics if d.kernel == "second"] == \
        [(d.code, d.location.line) for d in alone.diagnostics]


def test_open_branch_conditions_are_witnessed_by_earlier_models_without_the_solver() -> None:
    """The oracle keeps the solver's models: a condition both of whose sides hold at kept points (every fact
    checked there) is open without a solver call; a settled one still goes to the solver."""
    from compiler import expr as E
    from compiler.ir import SymInfo
    from nki_verify.analysis.oracle import SolverOracle

    x = E.Sym("x.shape[0]", 1)
    i = E.Sym("i", 2, "loop")
    j = E.Sym("j", 3, "loop")

    class KB:
        assumptions: list = []
        symbols = [SymInfo(x, "shape", "x.shape[0]", E.Const(1), None), SymInfo(i, "loop", "i", E.Const(0), E.Const(4)),
                   SymInfo(j, "loop", "j", E.Const(0), E.Const(8))]

        @classmethod
        def facts_key(cls) -> tuple:  # (as KernelBuilder.facts_key)
            return tuple(cls.assumptions), tuple((s.sym, s.lo, s.hi) for s in cls.symbols)

    facts = E.band(E.eq(E.mod(x, 128), 0), E.ge(x, 128))
    oracle = SolverOracle()
    try:
        assert oracle.decide(E.ge(x, 256), facts, KB, {}) is None  # two models: x < 256 and x >= 256
        asked = oracle.queries
        assert asked == 2
        assert oracle.decide(E.ge(x, 200), facts, KB, {}) is None  # both sides at those two points
        assert oracle.queries == asked
        # a loop index's other values are tried from a point: after `i == 3`, `i == 2` (true at no kept model)
        assert oracle.decide(E.eq(i, 3), facts, KB, {}) is None
        asked = oracle.queries
        assert oracle.decide(E.eq(i, 2), facts, KB, {}) is None
        assert oracle.queries == asked
        # a loop index no earlier question named starts at its range's start (its first iteration), and the kept
        # points other than the newest are tried too
        assert oracle.decide(E.ge(E.add(x, j), 256), facts, KB, {}) is None
        assert oracle.queries == asked
        # settled under the facts: a point shows one side only, the solver proves the other impossible
        assert oracle.decide(E.eq(E.mod(x, 64), 0), facts, KB, {}) is True
        assert oracle.decide(E.eq(E.mod(x, 256), 1), facts, KB, {}) is False
    finally:
        oracle.close()


def test_a_check_every_input_fails_at_its_last_iteration_is_an_error_without_the_quantified_question(
        monkeypatch) -> None:
    """Severity: a check that fails for every admissible input is an error.  It is proved by fixing the loop
    index where the counterexample has it (the last iteration) and asking a question without quantifiers, so
    the verdict does not hang on the `forall` question z3 finds hard (here made undecided)."""
    from nki_verify.analysis import solver

    monkeypatch.setattr(solver.Prover, "sometimes_fine", lambda self, *a, **k: None)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x):
            R, C = x.shape
            assert R % 128 == 0 and C <= 512
            out = nl.ndarray((R, C), dtype=x.dtype, buffer=nl.shared_hbm)
            for t in nl.affine_range(R // 128):
                tile = nl.ndarray((128, C), dtype=x.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=tile, src=x[t * 128 + 1:t * 128 + 129, :])
                nisa.dma_copy(dst=out[t * 128:t * 128 + 128, :], src=tile)
            return out
    """)
    found = [(d.code, d.severity, d.location.line) for d in verify_source(text, "k.py")]
    assert ("NKI101", "error", 12) in found, found


def test_shared_constants_are_not_written_by_program_instances() -> None:
    """Every instance of a grid reads a shared constant: no race (it is in the binary before any runs); a
    constant whose array the verifier cannot see has a size of its own, and the kernel is still checked."""
    text = src("""
        import numpy as np
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(a, table_file):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            ident = nl.shared_constant(np.eye(128, dtype=np.float32))
            other = nl.shared_constant(table_file)
            pid = nl.program_id(0)
            t = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
            u = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=ident)
            nisa.dma_copy(dst=u, src=other[0:128, 0:128])
            nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)
            return out
    """)
    opts = Options(shapes={"k": {"a": ((256, 128), None)}}, grids={"k": (2,)})
    diags = verify_source(text, "/tmp/k.py", opts)
    codes = [(d.code, d.location.line) for d in diags]
    assert not any(code in ("NKI402", "NKI902") for code, _ in codes), codes
    assert ("NKI901", 15) in codes  # the slice of the unseen constant: its size is not known
    undecided = next(d for d in diags if d.code == "NKI901" and d.location.line == 15)
    assert "shared_constant (k.py:10)" in undecided.message  # says which constant


def test_a_view_as_the_same_unknown_dtype_keeps_the_shape() -> None:
    """An input's dtype is not known statically; a tile of that dtype viewed as that same dtype keeps its
    element size, so the kernel is analysed (the out-of-bounds slice after it is found)."""
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(w):
            P, F = w.shape
            assert P == 128 and F == 512
            t = nl.ndarray((P, F), dtype=w.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=w)
            v = t.view(w.dtype)
            out = nl.ndarray((P, F), dtype=w.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=out, src=v[:, 0:F + 1])
            return out
    """)
    codes = [(d.code, d.location.line) for d in verify_source(text, "/tmp/k.py")]
    assert sorted(codes) == [("NKI101", 13), ("NKI501", 13)], codes  # past the end; 513 into 512 elements


def test_an_unpacked_shape_states_the_rank_an_index_only_bounds_it() -> None:
    # `w.shape[3]` after `E, P, F = w.shape` is a Python IndexError, not a reason to guess rank 4; without the
    # unpacking the same index only raises the guessed rank (see tests/kernels/b2_input_ranks.py)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(w):
            E, P, F = w.shape
            assert P <= 128 and F <= 512
            t = nl.ndarray((P, F), dtype=w.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=w[E - 1, 0:P, 0:F])
            extra = w.shape[3]
            return t
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    assert (d.code, d.severity, d.location.line) == ("NKI101", "error", 11)
    assert d.message == "index 3 is out of range for a sequence of length 3"
    unpacked = text.replace("E, P, F = w.shape", "E, P, F = w.shape[0], w.shape[1], w.shape[2]")
    (d,) = verify_source(unpacked, "/tmp/k.py")  # rank 4: the copy leaves out the last axis
    assert d.code == "NKI501" and "w.shape[3]" in dict(d.counterexample)


def test_an_optional_input_used_unconditionally_is_analysed_as_given() -> None:
    text = src("""
        from typing import Optional
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x, bias: Optional[nl.ndarray] = None, scale: Optional[nl.ndarray] = None):
            assert x.shape == (128, 512)
            b = bias
            t = nl.ndarray((128, 512), dtype=b.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[0:128, 0:513])
            return t
    """)
    # two inputs left at None and the dereferenced one under another name, whose None came from one of them
    # (`b = bias`): that one is meant.  A None that came from neither (`b = None`) is no input's
    d, oob = verify_source(text.replace("b = bias", "b = None"), "/tmp/k.py")
    assert (d.code, d.location.line, oob.code, oob.location.line) == ("NKI902", 10, "NKI101", 11)
    assert d.message.startswith("attribute 'dtype' of None: the value is None on this path")
    assert "--shape KERNEL.PARAM=DxD" in d.message
    # the input given a shape is analysed as a tensor (and the copy past x's end found)
    given = Options(shapes={"k": {"bias": ((128, 512), None)}})
    assert {(d.code, d.location.line) for d in verify_source(text, "/tmp/k.py", given)} == {("NKI101", 11),
                                                                                          ("NKI501", 11)}
    # with the only input left at None, or used under its own name or a name given it, the kernel is analysed
    # with it given
    for variant in (text.replace(", scale: Optional[nl.ndarray] = None", ""), text.replace("b.dtype", "bias.dtype"),
                    text):
        r = analyze_source(variant, "/tmp/k.py")
        assert {(d.code, d.location.line) for d in r.diagnostics} == {("NKI101", 11), ("NKI501", 11)}
        # each finding says so, where it is read (at the kernel's definition)
        for d in r.diagnostics:
            (note,) = [n for n in d.notes if "optional input" in n.message]
            assert note.message.startswith("analysed with the optional input bias given: the kernel dereferences it")
            assert note.location.line == 7  # the def
        assert r.kernels[0].context == ("standalone, symbolic shapes; "
                                        "bias given (optional, and dereferenced by the kernel)")


def test_a_finding_every_input_reaching_it_has_stands_when_reachability_is_undecided() -> None:
    # NKI503 holds on every input that reaches the instruction; only the path condition is beyond the solver
    path = os.path.join(os.path.dirname(__file__), "kernels", "b2_targets.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    r = analyze_source(text, path, Options(kernels=("exp_behind_a_hard_condition",)))
    (d,) = r.diagnostics
    assert (d.code, d.severity) == ("NKI503", "warning")
    assert "whenever this point is reached; the solver could not decide whether any admissible input reaches" in \
        d.message


def test_a_text_chosen_by_a_condition_compares_as_either_text() -> None:
    # `mode` is one of two names and `str(dt)` the name of one of two dtypes: each comparison asks the condition
    # (both were a placeholder unequal to every text: the fast path was never analysed, and the size helper
    # fell through to its assert on every path, so that nothing after it was checked)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        def sizeinbytes(dtype):
            if str(dtype) == str(nl.float32):
                return 4
            elif str(dtype) == str(nl.bfloat16) or str(dtype) == str(nl.float16):
                return 2
            elif str(dtype) in ["float8e4", "float8_e4m3", "int8"]:
                return 1
            assert False, "dtype size unknown"

        @nki.jit
        def k(x, fp8: int):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            dt = nl.float8_e4m3 if fp8 == 1 else x.dtype
            width = 2048 // sizeinbytes(dt)
            mode = "fast" if fp8 == 1 else "slow"
            nisa.dma_copy(dst=t, src=x)
            if mode == "fast":
                nisa.dma_copy(dst=t[0:128, 0:256], src=x[0:128, width - 256:width])
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    # the fast path sizes float8 at 1 byte: a copy from columns 1792:2048 of a 512-column input
    assert (d.code, d.location.line) == ("NKI101", 24) and dict(d.counterexample)["fp8"] == 1


def test_a_string_method_on_an_input_dtype_name_is_a_question() -> None:
    # str(x.dtype) of an input whose dtype is unknown is not the text of its placeholder: startswith() may hold
    # (was False, and the float8 path was never analysed)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x):
            assert x.shape == (128, 512)
            t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x)
            if str(x.dtype).startswith("float8"):
                nisa.dma_copy(dst=t[0:128, 0:256], src=x[0:128, 300:556])
            return t
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    assert (d.code, d.location.line) == ("NKI101", 11)


def test_a_true_division_by_an_input_size_rules_out_the_size_that_makes_it_zero() -> None:
    # `math.ceil(512 / f)` raises ZeroDivisionError at trace time for f == 0 (a row narrower than 512), so
    # those inputs are not admissible (was: a warning with x.shape[1] = 384, where Python would have raised)
    text = src("""
        import math
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x):
            assert x.shape[0] == 128 and x.shape[1] <= 4096
            f = x.shape[1] // 512
            n = math.ceil(512 / f)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t[0:128, 0:n], src=x[0:128, 0:n])
            nisa.dma_copy(dst=out[0:128, 0:n], src=t[0:128, 0:n])
            return out
    """)
    assert verify_source(text, "/tmp/k.py") == []
    # without the division the same slice is a finding for narrow rows
    wider = text.replace("n = math.ceil(512 / f)", "n = 512 - f")
    (d,) = verify_source(wider, "/tmp/k.py")
    assert (d.code, d.severity, d.location.line) == ("NKI101", "warning", 13)


def test_a_race_only_some_config_values_have_is_not_reported_like_other_config_findings() -> None:
    # the fields of a configuration object are built by code outside the kernel: a finding for only some of
    # their values says nothing about the configurations really built (NKI401 in a Beta 2 affine_range is a
    # warning at most, and was reported anyway)
    text = src("""
        from dataclasses import dataclass
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @dataclass
        class Cfg(nl.NKIObject):
            stride: int

        @nki.jit
        def k(x, cfg: Cfg):
            assert x.shape == (128, 4096)
            assert cfg.stride >= 1 and cfg.stride * 8 <= 4096 - 128
            out = nl.ndarray((128, 4096), dtype=x.dtype, buffer=nl.shared_hbm)
            for i in nl.affine_range(8):
                t = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=t, src=x[0:128, 0:128])
                nisa.dma_copy(dst=out[0:128, i * cfg.stride:i * cfg.stride + 128], src=t)
            return out
    """)
    assert verify_source(text, "/tmp/k.py") == []
    # the stride as an input of the kernel: the race for strides under 128 is reported
    as_input = text.replace("cfg: Cfg", "stride: int").replace("cfg.stride", "stride")
    (d,) = verify_source(as_input, "/tmp/k.py")
    assert (d.code, d.severity, d.location.line) == ("NKI401", "warning", 18)
    # a race every config value has is still reported
    always = text.replace("i * cfg.stride:i * cfg.stride + 128", "cfg.stride:cfg.stride + 128")
    assert [d.code for d in verify_source(always, "/tmp/k.py")] == ["NKI401"]


def test_an_optional_input_every_path_requires_says_why_it_is_given() -> None:
    # the kernel never dereferences `cos` where it is None: it asserts it is not, so every path with it left at
    # None fails, and the finding's note says that (not that the kernel dereferences it)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(q, cache=None, cos=None, bias=None):
            if cache is not None:
                table = cache
            else:
                assert cos is not None, "pass the cache or cos"
                table = cos
            assert q.shape == (128, 256) and table.shape == (128, 256)
            t = nl.ndarray((128, 256), dtype=bias.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=q[0:128, 1:257])
            return t
    """)
    r = analyze_source(text, "/tmp/k.py")
    (d,) = [d for d in r.diagnostics if d.code == "NKI101"]
    assert d.location.line == 14
    notes = sorted(n.message for n in d.notes if "optional input" in n.message)
    assert notes == ["analysed with the optional input bias given: the kernel dereferences it, so a launch without "
                     "it fails while tracing",
                     "analysed with the optional input cos given: every path with it left at None fails (an assert "
                     "or raise), so launches pass it"]
    assert r.kernels[0].context.endswith("; bias given (optional, and dereferenced by the kernel); cos given "
                                         "(optional, and every path with it left at None fails)")


def test_an_optional_input_some_paths_dereference_is_analysed_both_ways() -> None:
    # `use_bias == 1` without a bias fails while tracing: the kernel is analysed without the bias (the flag's
    # other paths) and with it, and each analysis finds the bug on its own path
    text = src("""
        from typing import Optional
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x, use_bias: int, bias: Optional[nl.ndarray] = None):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x)
            if use_bias == 1:
                assert bias.shape == (128, 512)
                b = nl.ndarray((128, 512), dtype=bias.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=b, src=bias[0:128, 0:512])
                nisa.dma_copy(dst=t[0:128, 0:256], src=bias[0:128, 257:513])
            if bias is None:
                nisa.dma_copy(dst=t[0:128, 0:256], src=x[0:128, 300:556])
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    r = analyze_source(text, "/tmp/k.py")
    assert sorted((d.code, d.severity, d.location.line) for d in r.diagnostics) == [
        ("NKI101", "warning", 16), ("NKI101", "warning", 18)]
    assert [k.context for k in r.kernels] == [
        "standalone, symbolic shapes", "standalone, symbolic shapes; bias given (optional, and dereferenced by the "
        "kernel)"]


def test_an_optional_input_is_followed_through_helpers_and_fields_of_objects_built_from_it() -> None:
    # the path with use_q == 1 dereferences both optional inputs, under other names (a helper's parameter, a field
    # of a dataclass the kernel builds): it is analysed with them given, and its bug found (in two steps: the path
    # with w_scale given fails at the bias)
    text = src("""
        from dataclasses import dataclass
        from typing import Optional
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @dataclass
        class Quant(nl.NKIObject):
            w_scale: Optional[nl.ndarray]
            bias: Optional[nl.ndarray]

        def _apply(t, scale_tensor, q: Quant):
            assert scale_tensor.shape == (128, 512)
            s = nl.ndarray((128, 512), dtype=scale_tensor.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=s, src=scale_tensor)
            assert q.bias.shape == (128, 512)
            b = nl.ndarray((128, 512), dtype=q.bias.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=b, src=q.bias[0:128, 1:513])

        @nki.jit
        def k(x, use_q: int, w_scale: Optional[nl.ndarray] = None, bias: Optional[nl.ndarray] = None):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x)
            q = Quant(w_scale=w_scale, bias=bias)
            scale = q.w_scale
            if use_q == 1:
                _apply(t, scale, q)
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    r = analyze_source(text, "/tmp/k.py")
    assert [(d.code, d.location.line) for d in r.diagnostics] == [("NKI101", 18)]
    assert [k.context for k in r.kernels] == [
        "standalone, symbolic shapes",
        "standalone, symbolic shapes; w_scale given (optional, and dereferenced by the kernel)",
        "standalone, symbolic shapes; bias, w_scale given (optional, and dereferenced by the kernel)"]


def test_an_optional_input_one_rank_of_another_input_needs_is_given_only_for_that_rank() -> None:
    # w is 3-D on the plain path and 2-D on the packed path, which needs the scale: the run for rank 2 fails on
    # every path without the scale, but that does not make the scale needed by every launch, and the plain path
    # is analysed without it (its bug, on the path without the scale, was missed)
    text = src("""
        from typing import Optional
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(w, packed: int, scale: Optional[nl.ndarray] = None):
            out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            if packed == 0:
                E, P, F = w.shape
                assert P == 128 and F == 512 and E >= 1
                nisa.dma_copy(dst=t, src=w[0, 0:128, 0:512])
                if scale is None:
                    nisa.dma_copy(dst=t[0:128, 0:256], src=w[0, 0:128, 300:556])
            else:
                P, F = w.shape
                assert P == 128 and F == 512
                assert scale.shape == (128, 4)
                s = nl.ndarray((128, 4), dtype=scale.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=s, src=scale)
                nisa.dma_copy(dst=t, src=w)
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    r = analyze_source(text, "/tmp/k.py")
    assert [(d.code, d.location.line) for d in r.diagnostics] == [("NKI101", 15)]
    assert "standalone, symbolic shapes" in [k.context for k in r.kernels]


B1_HEADER = """
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
"""


def test_beta1_binary_ops_broadcast_a_one_partition_tile() -> None:
    # Beta 1's nl.add broadcasts a (1, 512) tile along the partitions; two different partition counts do not
    text = B1_HEADER + src("""
        @nki.jit
        def k(a_tensor, b_tensor):
            assert a_tensor.shape == (128, 512) and b_tensor.shape == (128, 512)
            c_tensor = nl.ndarray((128, 512), dtype=a_tensor.dtype, buffer=nl.shared_hbm)
            a = nl.load(a_tensor[0:128, 0:512])
            b = nl.load(b_tensor[0:1, 0:512])
            nl.store(c_tensor[0:128, 0:512], nl.add(a, b))
            return c_tensor
    """)
    assert verify_source(text, "/tmp/k.py") == []
    (d,) = verify_source(text.replace("b_tensor[0:1, 0:512]", "b_tensor[0:2, 0:512]"), "/tmp/k.py")
    assert (d.code, d.severity) == ("NKI501", "error") and "or one of them 1" in d.message


def test_beta1_masks_combine_conditions_with_and() -> None:
    # `(i_p < 64) & (i_f < 256)` is a conjunction: the store past row 64 / column 256 of out is masked off
    text = B1_HEADER + src("""
        @nki.jit
        def k(in_tensor):
            assert in_tensor.shape == (128, 512)
            out_tensor = nl.ndarray((64, 256), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
            i_p = nl.arange(128)[:, None]
            i_f = nl.arange(512)[None, :]
            t = nl.load(in_tensor[i_p, i_f])
            nl.store(out_tensor[i_p, i_f], value=t, mask=((i_p < 64) & (i_f < 256)))
            return out_tensor
    """)
    assert verify_source(text, "/tmp/k.py") == []
    either = [d.code for d in verify_source(text.replace(") & (", ") | ("), "/tmp/k.py")]
    assert either and set(either) == {"NKI101"}


def test_beta1_dtype_limits_and_indirect_loads() -> None:
    # `nl.fp32.min` is a number; an index tile loaded from a one-axis input (`idx[i_p]`) gathers rows, so the
    # gathered tile has as many partitions as the index tile
    text = B1_HEADER + src("""
        @nki.jit
        def k(data_tensor, idx_tensor):
            assert data_tensor.shape == (128, 512) and idx_tensor.shape[0] == 64
            out_tensor = nl.ndarray((64, 512), dtype=data_tensor.dtype, buffer=nl.shared_hbm)
            i_p = nl.arange(64)[:, None]
            i_f = nl.arange(512)[None, :]
            idx_tile = nl.load(idx_tensor[i_p])
            data_tile = nl.load(data_tensor[idx_tile[i_p, 0], i_f])
            low = nisa.affine_select(pred=(i_f < 256), on_true_tile=data_tile[i_p, i_f], on_false_value=nl.fp32.min)
            nl.store(out_tensor, value=low)
            return out_tensor
    """)
    codes = sorted({d.code for d in verify_source(text, "/tmp/k.py")})
    assert codes == ["NKI102"], codes  # only the gathered rows' runtime indices, which nothing bounds
    assert "NKI501" in {d.code for d in verify_source(text.replace("(64, 512)", "(32, 512)"), "/tmp/k.py")}


def test_double_row_matmul_and_permuting_dma_transpose_shapes() -> None:
    # FP8 double-row matmul: stationary (K, 2, M) and moving (K, 2, N) give an (M, N) tile; a DMA transpose with
    # axes=(2, 1, 0) gives the permuted shape
    text = B1_HEADER + src("""
        @nki.jit
        def k(a_input, b_input, src_tensor):
            assert a_input.shape == (64, 2, 16) and b_input.shape == (64, 2, 32)
            assert src_tensor.shape == (4, 8, 16)
            c_output = nl.ndarray((16, 32), dtype=nl.float32, buffer=nl.shared_hbm)
            a_tile = nl.load(a_input.view(nl.float8_e5m2))
            b_tile = nl.load(b_input.view(nl.float8_e5m2))
            c_tile = nisa.nc_matmul(a_tile, b_tile, perf_mode="double_row_gen3")
            nl.store(c_output, value=c_tile)
            src = nl.load(src_tensor)
            d0, d1, d2 = src.shape
            t_output = nl.ndarray((d2, d1, d0), dtype=src.dtype, buffer=nl.shared_hbm)
            nl.store(t_output, nisa.dma_transpose(src, axes=(2, 1, 0)))
            return c_output, t_output
    """)
    codes = {d.code for d in verify_source(text, "/tmp/k.py", Options(target="trn2"))}
    assert not codes & {"NKI501", "NKI902", "NKI101"}, codes


HELPER_LIB = src("""
    import nki.isa as nisa
    import nki.language as nl

    def staged(src, rows):
        t = nl.ndarray((rows, src.shape[1]), dtype=src.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=src[0:rows, :])
        return t
""")

USES_LIB = src("""
    import nki
    import nki.isa as nisa
    import nki.language as nl
    from tilelib.staging import staged

    @nki.jit
    def k(x):
        assert x.shape == (128, 512)
        t = staged(x, 256)
        out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t[0:128, :])
        return out
""")


def _library(root) -> None:
    pkg = root / "tilelib"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "staging.py").write_text(HELPER_LIB)


def test_an_installed_nki_library_is_followed_and_frameworks_stay_opaque(tmp_path, monkeypatch) -> None:
    # a helper package installed next to the other site packages (read, never imported): its helper's
    # 256-partition tile is found through the call, instead of an unknown tile (NKI902)
    site = tmp_path / "site"
    _library(site)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.py").write_text(USES_LIB)
    monkeypatch.syspath_prepend(str(site))
    diags = verify_source(USES_LIB, str(proj / "k.py"))
    # the helper's 256 rows: too many partitions, and past the end of x
    assert sorted((d.code, os.path.basename(d.path)) for d in diags if d.severity == "error") == \
        [("NKI101", "staging.py"), ("NKI201", "staging.py")]
    assert not [d for d in diags if d.code == "NKI902"]
    # the same package without any NKI import is a framework: opaque, so the tile is not known
    (site / "tilelib" / "staging.py").write_text(HELPER_LIB.replace("import nki.isa as nisa\n", "")
                                                 .replace("import nki.language as nl\n", "nl = nisa = None\n"))
    diags = verify_source(USES_LIB, str(proj / "k.py"))
    assert not [d for d in diags if d.severity == "error"] and [d for d in diags if d.code == "NKI902"]


def test_a_search_path_directory_is_an_import_root(tmp_path) -> None:
    vendor = tmp_path / "vendor"
    _library(vendor)
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "k.py").write_text(USES_LIB)
    assert [d for d in verify_source(USES_LIB, str(proj / "k.py")) if d.code == "NKI902"]
    diags = verify_source(USES_LIB, str(proj / "k.py"), Options(search_path=(str(vendor),)))
    # the helper's 256 rows: too many partitions, and past the end of x
    assert sorted((d.code, os.path.basename(d.path)) for d in diags if d.severity == "error") == \
        [("NKI101", "staging.py"), ("NKI201", "staging.py")]


NAMESPACE_KERNEL = """
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from ..{module} import n_tiles


@nki.jit
def copy_rows(x):
    assert x.shape[0] % 128 == 0 and x.shape[1] == 64
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n_tiles(x.shape[0])):
        nl.store(out[i * 128:(i + 1) * 128, 0:64], value=nl.load(x[i * 128:(i + 1) * 128, 0:64]))
    return out
"""


def test_a_relative_import_crosses_directories_without_an_init_file(tmp_path) -> None:
    # pkg/kernels/ and pkg/util/ have no __init__.py (PEP 420 namespace packages): `..util.sizes` is pkg/util/sizes.py
    # as Python resolves it; its helper counts one tile too many, which the kernel's accesses show
    (tmp_path / "pkg" / "kernels").mkdir(parents=True)
    (tmp_path / "pkg" / "util").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util" / "sizes.py").write_text("def n_tiles(n):\n    return n // 128 + 1\n")
    path = str(tmp_path / "pkg" / "kernels" / "k.py")
    diags = verify_source(NAMESPACE_KERNEL.format(module="util.sizes"), path)
    assert sorted({(d.code, d.severity) for d in diags}) == [("NKI101", "error")]
    # a module no directory holds: one NKI902 naming it where the kernel calls what it should have given
    diags = verify_source(NAMESPACE_KERNEL.format(module="nothere"), path)
    missing = [d for d in diags if d.code == "NKI902"]
    assert len(missing) == 1 and "..nothere" in missing[0].message and "n_tiles()" in missing[0].message


def test_an_absolute_import_of_a_project_package_is_found_from_the_files_ancestors(tmp_path) -> None:
    # repo/lib/kernels/k.py imports `lib.util.sizes` as a script run from repo/ would (no __init__.py, or one in
    # repo/ itself, so no package root holds `lib`): found in an ancestor of the file, up to the project's top
    repo = tmp_path / "repo"
    (repo / "lib" / "kernels").mkdir(parents=True)
    (repo / "lib" / "util").mkdir()
    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (repo / "lib" / "util" / "sizes.py").write_text("def n_tiles(n):\n    return n // 128 + 1\n")
    path = str(repo / "lib" / "kernels" / "k.py")
    text = NAMESPACE_KERNEL.replace("from ..{module} import", "from lib.util.sizes import")
    diags = verify_source(text, path)
    assert sorted({(d.code, d.severity) for d in diags}) == [("NKI101", "error")]
    # not above the project's top: a package beside it is not the project's
    (tmp_path / "other" / "util").mkdir(parents=True)
    (tmp_path / "other" / "util" / "sizes.py").write_text("def n_tiles(n):\n    return n // 128\n")
    text = NAMESPACE_KERNEL.replace("from ..{module} import", "from other.util.sizes import")
    diags = verify_source(text, path)
    assert [d.code for d in diags if d.code == "NKI902"] == ["NKI902"] and "'other'" in diags[0].message
    assert not [d for d in diags if d.severity == "error"]


def test_calling_a_module_imported_from_a_package_is_a_type_error(tmp_path) -> None:
    # pkg/__init__.py imports nothing: `from . import fill` is the module pkg/fill.py, and calling it raises
    # TypeError when the path is traced (nki-library's qkv_cte on its static-quantisation path); -np.inf is a float
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "fill.py").write_text("def fill(t):\n    return t\n")
    text = src("""
        import numpy as np
        import nki
        import nki.isa as nisa
        import nki.language as nl
        from . import fill

        @nki.jit
        def k(x):
            assert x.shape == (128, 512)
            t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(dst=t, value=-np.inf)
            fill(t)
            return t
    """)
    (d,) = verify_source(text, str(tmp_path / "pkg" / "k.py"))
    assert (d.code, d.severity, d.location.line) == ("NKI609", "error", 12)
    assert d.message.startswith("calling the module") and "fill.fill" in d.message
    # on a path only some inputs take, a warning; the function imported from its module is a call like any other
    text = text.replace("    fill(t)\n", "    if x.dtype == nl.bfloat16:\n        fill(t)\n")
    (d,) = verify_source(text, str(tmp_path / "pkg" / "k.py"))
    assert (d.code, d.severity, d.location.line) == ("NKI609", "warning", 13)
    imported = text.replace("from . import fill", "from .fill import fill")
    assert verify_source(imported, str(tmp_path / "pkg" / "k.py")) == []


def test_a_type_error_on_the_paths_of_an_optional_input_says_it_was_given() -> None:
    """The run that follows the paths where an optional input is given reports what Python raises there with the
    note every finding of that run carries: a launch without the input does not take them."""
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x, rows_out=None):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x)
            if rows_out is not None:
                idx = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
                nisa.memset(dst=idx, value=0)
                nisa.dma_copy(dst=rows_out.ap([[512, 1], [1, 512]], offset=idx * 512), src=t[0:1, 0:512])
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    assert (d.code, d.severity, d.location.line) == ("NKI609", "error", 14)
    assert [n.message for n in d.notes] == [
        "analysed with the optional input rows_out given: the kernel tests it against None, and this run follows "
        "the paths where it is given (another, those where it is None)"]


TEST_DEFINED_KERNEL = """
import numpy as np
import nki
import nki.isa as nisa
import nki.language as nl
from harness import on_device, DEVICE


def test_add_on_device():
    @nki.jit
    def add(a, b):
        assert a.shape == b.shape and a.shape == ({rows}, 512)
        # `sbuf` and `hbm` are names the Beta-2 tracer provides to kernel code
        ta = sbuf.view(dtype=a.dtype, shape=a.shape)  # noqa: F821
        nisa.dma_copy(dst=ta, src=a)
        tb = sbuf.view(dtype=b.dtype, shape=b.shape)  # noqa: F821
        nisa.dma_copy(dst=tb, src=b)
        nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
        out = hbm.view(dtype=a.dtype, shape=a.shape)  # noqa: F821
        nisa.dma_copy(dst=out, src=ta)
        return out

    def run(a, b):
        return add(a, b)

    if DEVICE:
        on_device(run, np.ones(({rows}, 512), np.float32), np.ones(({rows}, 512), np.float32))
"""


def test_a_kernel_a_test_defines_and_hands_to_a_harness_is_analysed_standalone() -> None:
    # the test passes it to a harness the analysis does not follow, under a flag it cannot know: the kernel
    # takes nothing from the test function, so it is the same kernel analysed standalone (was NKI902 "defined
    # inside test_add_on_device(), which this module never calls"), its tracer-provided sbuf/hbm included
    ok = verify_source(TEST_DEFINED_KERNEL.format(rows=128), "test_k.py")
    assert [(d.code, d.severity) for d in ok] == []
    bad = verify_source(TEST_DEFINED_KERNEL.format(rows=256), "test_k.py")
    assert {(d.code, d.severity) for d in bad} == {("NKI201", "error")}


PYTHON_SUBSET_KERNEL = """
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def copy_with_python_checks(x):
    rows, cols = 128, 512
    assert [1, 1] < [1, 2] and not [2] <= [1, 9]
    d = {"rows": rows}
    d["cols"] = cols
    assert d == {"cols": 512, "rows": 128} and d != {"rows": 128}
    assert f"{rows} x {cols:05d}" == "128 x 00512"
    assert f"{x} rows" != "x rows" or True
    d.clear()
    assert d == {}
    assert x.shape == (rows, cols)
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def miscounted(x):
    assert [1, 2].count() == 2
    return x


@nki.jit
def misindexed(x):
    assert (1, 2).index() == 0
    return x
"""


def test_python_that_kernels_run_while_tracing_is_followed() -> None:
    # list ordering, dict equality and clear(), f-strings of known values: as Python evaluates them (they were
    # NKI902, or "every path fails" from an f-string taken as "{…}"); a list method called wrongly is a finding
    # on its kernel, not an internal error that loses the file's other kernels
    diags = verify_source(PYTHON_SUBSET_KERNEL, "py.py")
    assert [(d.code, d.line) for d in diags] == [("NKI902", 28), ("NKI902", 34)], \
        [(d.code, d.line, d.message) for d in diags]
    assert "list.count() takes exactly one value" in diags[0].message
    assert "tuple.index() takes the value to find" in diags[1].message


def test_copies_of_a_warning_are_settled_at_an_input_the_solver_found_fine(monkeypatch) -> None:
    """Once a finding is shown as a warning, a copy of it matters only if it is an error.  The input the
    severity question found fine is kept: where the copy's goal holds at that input on every iteration (the
    intervals prove it once the input is fixed), the copy needs no solver call, and the output is the same."""
    from nki_verify.analysis import engine

    made: list = []
    init = engine.KernelAnalysis.__init__

    def record(self, *a, **k) -> None:
        init(self, *a, **k)
        made.append(self)

    monkeypatch.setattr(engine.KernelAnalysis, "__init__", record)
    with_points = verify_source(COPIES, "/tmp/k.py")
    (ka,) = made
    assert ka.stats.by_point == 2 and ka.prover.fine_points  # the second and third call's copies
    queries = ka.stats.queries
    monkeypatch.setattr(engine.KernelAnalysis, "_fine_at_points", lambda self, ob, local: False)
    made.clear()
    without = verify_source(COPIES, "/tmp/k.py")
    assert without == with_points
    assert [(d.code, d.severity, d.location.line) for d in without] == [("NKI101", "warning", 7)]
    assert made[0].stats.queries > queries


def test_a_kept_input_that_breaks_a_kernel_fact_settles_nothing() -> None:
    """A kept input is used only where every fact on admissible inputs holds there, and the goal is proved at
    it for every iteration reaching the node."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis.engine import KernelAnalysis, Obligation

    n = E.Sym("n", 1)
    i = E.Sym("i", 2, "loop")
    span = ir.Span("k.py", 1, 1, 1, 2)
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",),
                       (ir.SymInfo(n, "shape", "n", E.Const(1), None), ir.SymInfo(i, "loop", "i")),
                       (ir.Loop(0, i, E.Const(0), E.floordiv(n, 512), E.ONE, "affine_range", span, None, ir.B2),),
                       (), (), (), (), (ir.Assumption(E.eq(E.mod(n, 512), 0), span, "assert"),), None, "trn2")
    ka = KernelAnalysis(kernel, 1000)
    goal = E.le(E.add(E.mul(512, i), 512), n)  # holds on every iteration, for every n
    ob = Obligation("NKI101", goal, (E.ge(i, 0), E.lt(i, E.floordiv(n, 512))), span, "m")
    ka.prover.fine_points.append({n: 1000})  # not a multiple of 512: not admissible
    assert not ka._fine_at_points(ob, list(ob.facts))
    ka.prover.fine_points.append({n: 1024})
    assert ka._fine_at_points(ob, list(ob.facts))
    bad = Obligation("NKI101", E.le(E.add(E.mul(512, i), 513), n), ob.facts, span, "m")
    assert not ka._fine_at_points(bad, list(bad.facts))  # fails at the last iteration for n = 1024


def test_operands_chosen_by_one_index_fork_the_instruction_once_per_value() -> None:
    """`w[j]` and `x[j]` from lists: the instruction is followed once per value of `j`, on paths that agree
    on it (the second operand's fork used to run under the first's conditions too: 16 matmuls for 4 values,
    12 of them on contradictory paths, each with checks to prove)."""
    from compiler import expr as E

    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(a, b):
            ws = []
            xs = []
            for j in range(4):
                ws.append(nl.ndarray((128, 128), dtype=nl.bfloat16, buffer=nl.sbuf))
                xs.append(nl.ndarray((128, 512), dtype=nl.bfloat16, buffer=nl.sbuf))
                nisa.dma_copy(dst=ws[j], src=a[j * 128:(j + 1) * 128, 0:128])
                nisa.dma_copy(dst=xs[j], src=b[j * 128:(j + 1) * 128, 0:512])
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
            for j in nl.affine_range(4):
                nisa.nc_matmul(dst=acc[0:128, 0:512], stationary=ws[j], moving=xs[j])
            return acc
    """)
    (kernel,) = analyze_source(text, "k.py").ir
    matmuls = [ins for ins in kernel.instrs if ins.op.endswith("nc_matmul")]
    (j,) = {s for ins in matmuls for s in E.free_syms(ins.ctx.path)}
    assert len(matmuls) == 4
    # each on the path of one value of j
    assert sorted(v for ins in matmuls for v in range(4) if E.evaluate(ins.ctx.path, {j: v})) == [0, 1, 2, 3]


def test_an_enum_input_is_any_of_its_members() -> None:
    # was: an opaque value no member equals, so the assert failed on every path and nothing was checked
    text = src("""
        from enum import Enum
        import nki
        import nki.isa as nisa
        import nki.language as nl

        class Mode(Enum):
            PLAIN = 0
            SCALED = 1
            PACKED = 2

        def check_mode(mode):
            assert mode == Mode.PLAIN or mode is Mode.SCALED, f"unsupported {mode}"

        @nki.jit
        def k(x, mode: Mode):
            check_mode(mode)
            assert x.shape == (128, 512)
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[0:128, 0:512])
            if mode != Mode.SCALED:
                nisa.dma_copy(dst=t[:, 0:256], src=x[0:128, 400:656])
            if mode == Mode.PACKED:
                nisa.dma_copy(dst=t[:, 0:256], src=x[0:128, 300:556])
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    (d,) = verify_source(text, "/tmp/k.py")
    # only the plain mode reads past the end (a launch with the scaled one is fine: a warning); the packed
    # mode's read is on a path the kernel's own assert excludes
    assert (d.code, d.severity, d.line) == ("NKI101", "warning", 21)


def test_a_placed_tile_first_used_later_is_checked_for_capacity_there() -> None:
    # its liveness starts at its first use: the capacity check looks at that point (it used to take the
    # tensors live at its allocation, none here, and fail on an empty list)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x):
            assert x.shape == (128, 256)
            out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
            a = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
            nisa.dma_copy(dst=out, src=x)
            nisa.dma_copy(dst=a, src=x)
            nisa.dma_copy(dst=out, src=a)
            return out
    """)
    assert verify_source(text, "/tmp/k.py") == []


def test_a_placed_tile_never_read_only_clobbers_where_it_is_written() -> None:
    # `acc` is written twice and never read: only its writes can corrupt `s`, and neither falls inside the
    # scratch's use; a write in the middle of it does
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        @nki.jit
        def k(x):
            assert x.shape == (128, 256)
            out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
            acc = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
            s = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
            nisa.dma_copy(dst=acc, src=x)
            nisa.dma_copy(dst=s, src=x)
            nisa.dma_copy(dst=out, src=s)
            nisa.dma_copy(dst=acc, src=x)
            return out
    """)
    assert verify_source(text, "/tmp/k.py") == []
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if "dma_copy(dst=out, src=s)" in line)
    lines[i], lines[i + 1] = lines[i + 1], lines[i]  # the second write of acc before the scratch is read
    inside = "\n".join(lines) + "\n"
    assert [(d.code, d.severity) for d in verify_source(inside, "/tmp/k.py")] == [("NKI302", "error")]


def test_a_return_not_understood_returns_an_unknown_value_not_none() -> None:
    # the return statement's value is not understood (NKI902 there): the function returns something unknown,
    # not None by falling off its end, which made each use of the result a misleading "attribute of None"
    text = src("""
        import numpy as np
        import nki
        import nki.isa as nisa
        import nki.language as nl

        class Dims(nl.NKIObject):
            def __init__(self, p, f):
                self.p = p
                self.f = f

        def dims_of(x):
            return Dims(x.shape[0], [d for d in np.ones(3)][0])

        @nki.jit
        def k(x):
            d = dims_of(x)
            assert d.p == 128
            t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[0:128, 0:512])
            return t
    """)
    diags = verify_source(text, "/tmp/k.py")
    assert any(d.code == "NKI902" and "iterating" in d.message for d in diags)
    assert not any("of None" in d.message for d in diags), [d.message for d in diags]


def test_an_optional_tensor_field_of_an_object_input_is_given_where_dereferenced() -> None:
    # tests/kernels/b2_optional_fields.py: standalone, the object input and its scale field are given on the paths
    # that dereference the scale (a warning: only launches asking for the scale reach the copy); launched by host
    # code that builds the object around its array, the field is an input tensor and the copy an error
    path = os.path.join(os.path.dirname(__file__), "kernels", "b2_optional_fields.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    r = analyze_source(text, path, Options(kernels=("scaled_copy_one_past",)))
    assert [(d.code, d.severity, d.location.line) for d in r.diagnostics] == [("NKI101", "warning", 49)]
    assert any("quant, quant.scale given" in k.context for k in r.kernels)
    launched = text + (
        "\n\ndef launch(x, s):\n"
        "    return scaled_copy_one_past(x, True, ScaleConfig(scale=s))\n")
    r = analyze_source(launched, path)
    assert [(d.code, d.severity, d.location.line) for d in r.diagnostics] == [("NKI101", "error", 49)]
    assert [k.context for k in r.kernels if k.name == "scaled_copy_one_past"] == ["launched at line 58"]


def test_paths_needing_more_given_inputs_than_allowed_are_said() -> None:
    # seven optional inputs, each dereferenced on its own path: giving them all is more than MAX_GIVEN, so those
    # paths are not analysed, and the kernel says so (they used to be dropped silently)
    names = [f"b{i}" for i in range(7)]
    params = ", ".join(f"{n}: Optional[nl.ndarray] = None" for n in names)
    body = "".join(f"    if mode == {i}:\n        assert {n}.shape == (128, 512)\n"
                   f"        nisa.dma_copy(dst=t, src={n}[0:128, 0:512])\n" for i, n in enumerate(names))
    text = ("from typing import Optional\nimport nki\nimport nki.isa as nisa\nimport nki.language as nl\n\n\n"
            f"@nki.jit\ndef k(x, mode: int, {params}):\n    assert x.shape == (128, 512)\n"
            "    t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)\n    nisa.dma_copy(dst=t, src=x)\n"
            f"{body}    return t\n")
    (d,) = verify_source(text, "/tmp/k.py")
    assert d.code == "NKI902" and d.location.line == 13
    assert d.message.startswith("paths that dereference the optional inputs b0, b1, b2, b3, b4, b5, b6 left at None "
                                "were not analysed")
    # six are within the limit: analysed with them given, nothing to report
    six = text.replace(", b6: Optional[nl.ndarray] = None", "").replace(
        "    if mode == 6:\n        assert b6.shape == (128, 512)\n"
        "        nisa.dma_copy(dst=t, src=b6[0:128, 0:512])\n", "")
    assert verify_source(six, "/tmp/k.py") == []


def test_a_mode_whose_default_always_fails_is_analysed_with_the_values_launches_pass() -> None:
    # tests/kernels/b2_defaulted_modes.py: `scaling` defaults to a member the kernel rejects; standalone it is
    # analysed with the member that gets through (said in a note and the kernel's description), and a launch that
    # passes a value keeps it (here the rejected one: every path fails, and nothing is replaced)
    path = os.path.join(os.path.dirname(__file__), "kernels", "b2_defaulted_modes.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    r = analyze_source(text, path, Options(kernels=("post_scaled_copy_one_past",)))
    assert [(d.code, d.location.line) for d in r.diagnostics] == [("NKI101", 48)]
    assert any("analysed with scaling=Scaling.POST" in n.message for n in r.diagnostics[0].notes)
    assert [k.context for k in r.kernels] == [
        "standalone, symbolic shapes; scaling=Scaling.POST (every path with its default Scaling.PRE fails)"]
    launched = text + "\n\ndef launch(x):\n    return post_scaled_copy_one_past(x, Scaling.PRE)\n"
    r = analyze_source(launched, path, Options(kernels=("post_scaled_copy_one_past",)))
    assert [d.code for d in r.diagnostics] == ["NKI901"]
    assert "every path through this kernel fails" in r.diagnostics[0].message


def test_a_product_by_a_size_chosen_by_conditions_is_proved_on_each_side() -> None:
    """`f*size + n <= 128` for `size = 32 if n <= 32 else (64 if n <= 64 else 128)` and `f < 128 // size`: on
    each side of the conditions the size is a constant in the goal and in the bound of f (qkv_tkg's PSUM rows
    of an array-tiled matmul, which the solver left undecided among the kernel's facts).  One row more is
    refuted on the side where it fails."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis.engine import KernelAnalysis

    n = E.Sym("n", 1)
    f = E.Sym("f", 2, "loop")
    span = ir.Span("k.py", 1, 1, 1, 2)
    size = E.ite(E.le(n, 32), 32, E.ite(E.le(n, 64), 64, 128))
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",),
                       (ir.SymInfo(n, "shape", "n", E.Const(1), E.Const(129)), ir.SymInfo(f, "loop", "f")),
                       (ir.Loop(0, f, E.Const(0), E.floordiv(128, size), E.ONE, "affine_range", span, None, ir.B2),),
                       (), (), (), (), (), None, "trn2")
    ka = KernelAnalysis(kernel, 1000)
    facts = [E.ge(f, 0), E.lt(f, E.floordiv(128, size)), E.ge(n, 1), E.le(n, 128)]
    assert E.ite_conditions(E.le(E.add(E.mul(f, size), n), 128)) == [E.le(n, 32), E.le(n, 64)]
    assert ka._by_conditions(E.le(E.add(E.mul(f, size), n), 128), facts, 10_000)
    assert not ka._by_conditions(E.le(E.add(E.mul(f, size), n), 127), facts, 10_000)


def test_a_place_shown_undecided_is_only_searched_for_a_violation(monkeypatch) -> None:
    """Another copy of a check at a place already shown as undecided (NKI901) is asked for a violation, which
    would replace what is shown there, but not proved by the narrower questions, which would change nothing; a
    place whose undecided copy a later split may still prove (deferred) is not yet such a place."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis import engine
    from nki_verify.analysis.solver import Prover, Unknown, Violated

    n, m = E.Sym("n", 1), E.Sym("m", 2)
    span, other = ir.Span("k.py", 3, 1, 3, 9), ir.Span("k.py", 4, 1, 4, 9)
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",),
                       (ir.SymInfo(n, "shape", "n", E.Const(1), None), ir.SymInfo(m, "shape", "m", E.Const(1), None)),
                       (), (), (), (), (), (), None, "trn2")
    asked: list = []
    answer: list = [Unknown("it reached its work limit, the same on every machine")]
    monkeypatch.setattr(Prover, "find_violation", lambda self, goal, facts, rlimit=0, retry=True: answer[0])
    monkeypatch.setattr(Prover, "proves_narrowly", lambda self, goal, facts, rlimit=0: asked.append(goal) or False)
    ka = engine.KernelAnalysis(kernel, 1000)
    hard = E.le(E.mul(n, m), E.add(E.mul(n, n), E.mul(m, m)))
    split = E.le(E.mul(n, E.ite(E.le(m, 32), 32, 64)), E.mul(m, m))  # a product by a conditional: deferred

    def check(goal: E.BExpr, where: ir.Span, facts: tuple = ()) -> object:
        return ka.check(engine.Obligation("NKI101", goal, facts, where, "slice past the end"))

    first = check(split, span)
    assert first.code == "NKI901" and len(asked) == 1 and len(ka.deferred) == 1
    assert check(split, span, (E.ge(n, 2),)).code == "NKI901" and len(asked) == 2  # deferred: not settled yet
    assert ka.settle_deferred() == set()  # the split proves neither: the place is shown undecided for good
    assert check(hard, span).code == "NKI901" and len(asked) == 2
    assert check(hard, other).code == "NKI901" and len(asked) == 3
    answer[0] = Violated({n: 5, m: 1})
    found = check(hard, span, (E.ge(m, 1),))
    assert found.code == "NKI101" and len(asked) == 3
    # two deferred copies at one place: once the split leaves the first undecided, the second is not split
    answer[0] = Unknown("it reached its work limit, the same on every machine")
    third = ir.Span("k.py", 5, 1, 5, 9)
    check(split, third)
    check(split, third, (E.ge(n, 3),))
    assert len(ka.deferred) == 2
    splits: list = []
    monkeypatch.setattr(engine.KernelAnalysis, "_by_conditions", lambda self, *a: splits.append(a) or False)
    assert ka.settle_deferred() == set() and len(splits) == 1


def test_a_place_shown_undecided_for_one_check_still_narrows_another(monkeypatch) -> None:
    """A helper's access at one line, called for two arrays: the copies for 'k' shown undecided there do not
    stop the narrower proofs of the copies for 'q' (a later violation of 'k' would take the place, and an
    unproved copy of 'q' would then be the undecided check shown: rope_hf:251 after a 3-D cos was analysed)."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis import engine
    from nki_verify.analysis.solver import Prover, Unknown

    n, m = E.Sym("n", 1), E.Sym("m", 2)
    span = ir.Span("k.py", 3, 1, 3, 9)
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",),
                       (ir.SymInfo(n, "shape", "n", E.Const(1), None), ir.SymInfo(m, "shape", "m", E.Const(1), None)),
                       (), (), (), (), (), (), None, "trn2")
    asked: list = []
    monkeypatch.setattr(Prover, "find_violation", lambda self, goal, facts, rlimit=0, retry=True:
                        Unknown("it reached its work limit, the same on every machine"))
    monkeypatch.setattr(Prover, "proves_narrowly", lambda self, goal, facts, rlimit=0: asked.append(goal) or False)
    ka = engine.KernelAnalysis(kernel, 1000)
    hard = E.le(E.mul(n, m), E.add(E.mul(n, n), E.mul(m, m)))

    def check(array: str, facts: tuple = ()) -> object:
        return ka.check(engine.Obligation("NKI102", hard, facts, span, f"runs past the end of {array!r} (n*m)"))

    assert check("k").code == "NKI901" and len(asked) == 1
    assert check("k", (E.ge(n, 2),)).code == "NKI901" and len(asked) == 1  # the same check: not narrowed again
    assert check("q").code == "NKI901" and len(asked) == 2  # another check at the place: narrowed
    assert check("q", (E.ge(m, 2),)).code == "NKI901" and len(asked) == 2


def test_an_undecided_check_is_proved_from_the_dimensions_of_a_tile_allocated_on_its_path(monkeypatch) -> None:
    """A tile allocated with `(n + 127) // 128` columns on the path where `g == 2` has at least one column there:
    the narrow proof of an undecided check over `n` alone uses that allocation fact, stripped of the path
    alternative the check's own facts rule out.  Without `g == 2` among them the fact says nothing of `n`."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis import engine
    from nki_verify.analysis.solver import Prover, Unknown

    n, g = E.Sym("n", 1), E.Sym("g", 2)
    span = ir.Span("k.py", 3, 1, 3, 9)
    cols = E.floordiv(E.add(n, 127), 128)
    alloc = ir.Assumption(E.bor(E.ne(g, 2), E.ge(cols, 1)), span, "allocation")
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",),
                       (ir.SymInfo(n, "int", "n", None, None), ir.SymInfo(g, "shape", "g", E.Const(1), None)),
                       (), (), (), (), (), (alloc,), None, "trn2")
    monkeypatch.setattr(Prover, "find_violation",
                        lambda self, goal, facts, rlimit=0, retry=True: Unknown("it reached its work limit"))
    ka = engine.KernelAnalysis(kernel, 1000)
    goal = E.ge(cols, 0)  # `0:cols` does not end before it starts
    assert ka.check(engine.Obligation("NKI101", goal, (E.eq(g, 2),), span, "slice")) is None
    other = ir.Span("k.py", 4, 1, 4, 9)
    assert ka.check(engine.Obligation("NKI101", goal, (E.ge(g, 1),), other, "slice")).code == "NKI901"


def test_a_result_computed_from_tiles_of_inputs_of_guessed_rank_corrects_the_rank() -> None:
    """`acc += nc_matmul(nl.load(a[i]), nl.load(b[i]))` with nothing else said of a and b: `a[i]` alone makes a's
    rank a guess of 1, and the product of two scalar tiles cannot fill acc for any input, which was a false
    error. The result keeps its tiles' inputs: assigning it where it certainly cannot fit says they have more
    axes, and with 3 the kernel is analysed as written (what some shapes break stays a warning)."""
    text = """
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def accumulate(a, b):
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
    for i in range(4):
        acc += nisa.nc_matmul(nl.load(a[i]), nl.load(b[i]))
    nl.store(out, value=nl.copy(acc))
    return out
"""
    ds = analyze_source(text, "/tmp/k.py").diagnostics
    assert not [d for d in ds if d.severity == "error"], [(d.code, d.message) for d in ds]
    fits = text.replace("def accumulate(a, b):", "def accumulate(a, b):\n    assert a.shape == (4, 128, 128) and "
                        "b.shape == (4, 128, 512)")
    assert analyze_source(fits, "/tmp/k.py").diagnostics == []


def test_a_loop_whose_bounds_are_long_in_the_inputs_terms_is_named_in_the_kernels_words() -> None:
    """The note on a loop index says its range in the inputs' terms when that reads in a line, else as the
    kernel writes it (nki-library's cascaded_max printed a five-line expression)."""
    body = """
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def k(x):
    n, w = x.shape
    rows = min(n // 128 - (w + 3) // 4 * 2 + n // 640, (n + 7) // 8 * 3 + w // 5 - n // 256, n // 384 + (w + 1) // 7)
    out = nl.ndarray((128, 4), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 4), dtype=x.dtype, buffer=nl.sbuf)
    for i in nl.sequential_range(ROWS):
        nisa.dma_copy(dst=t, src=x[i * 128:i * 128 + 128, 0:4])
    nisa.dma_copy(dst=out, src=t)
    return out
"""
    def notes(rows: str) -> list:
        ds = analyze_source(body.replace("ROWS", rows), "/tmp/k.py").diagnostics
        return [n.message for d in ds if d.code == "NKI101" for n in d.notes if "loop index" in n.message]

    assert set(notes("rows")) == {"loop index i ranges over nl.sequential_range(rows) (bounds too long to show in "
                                  "terms of the inputs)"}
    assert set(notes("n // 128 + 1")) == {"loop index i ranges over range(0, x.shape[0] // 128 + 1)"}


def test_a_conditional_of_numbers_is_split_into_its_values() -> None:
    """A tile factor chosen by a degree (`2 if tp == 4 else (4 if tp == 64 else 1)`) takes one of three values
    whatever the input: one case per value, the conditional replaced by it, leaves `(n // f) * f <= n` linear in
    each; a goal that fails for one of the values is not proved."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis.engine import KernelAnalysis, _constant_conditionals

    n, tp = E.Sym("n", 1), E.Sym("tp", 2)
    span = ir.Span("k.py", 1, 1, 1, 2)
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",),
                       (ir.SymInfo(n, "shape", "n", E.Const(1), None), ir.SymInfo(tp, "scalar", "tp", None, None)),
                       (), (), (), (), (), (), None, "trn2")
    ka = KernelAnalysis(kernel, 1000)
    f = E.ite(E.eq(tp, 4), 2, E.ite(E.eq(tp, 64), 4, 1))
    assert _constant_conditionals(E.le(E.mul(E.floordiv(n, f), f), n)) == [(f, [1, 2, 4])]
    assert ka._by_cases(E.le(E.mul(E.floordiv(n, f), f), n), [E.ge(n, 1)], ka.ranges, 10_000)
    assert not ka._by_cases(E.le(E.mul(E.floordiv(E.add(n, 3), f), f), n), [E.ge(n, 1)], ka.ranges, 10_000)


def test_a_program_id_in_the_facts_is_split_into_its_values() -> None:
    """An uneven LNC shard (core 0 takes the first 13/20 of the tiles, core 1 the rest) bounds a pipelined loop
    by products of the program id and the tile count: the goal `g + 2 < tiles` is linear, its facts are not.
    One case per value of the program id leaves the facts linear, and the goal follows in each; a goal that
    fails for core 1 is not proved."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis.engine import KernelAnalysis

    n, pid, g = E.Sym("n", 1), E.Sym("pid", 2), E.Sym("g", 3)
    span = ir.Span("k.py", 1, 1, 1, 2)
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",),
                       (ir.SymInfo(n, "shape", "n", E.Const(1), None),
                        ir.SymInfo(pid, "pid", "program_id(0)", E.Const(0), E.Const(2)),
                        ir.SymInfo(g, "loop", "g", None, None)),
                       (), (), (), (), (), (), None, "trn2")
    ka = KernelAnalysis(kernel, 1000)
    tiles = E.floordiv(E.add(n, 127), 128)
    first = E.floordiv(E.mul(13, tiles), 20)
    start = E.mul(pid, first)
    end = E.add(start, first, E.mul(pid, E.sub(tiles, E.mul(2, first))))
    local = [E.le(start, g), E.lt(E.add(g, 2), end)]
    assert ka._by_cases(E.lt(E.add(g, 2), tiles), local, ka.ranges, 10_000)
    assert not ka._by_cases(E.lt(E.add(g, 3), tiles), local, ka.ranges, 10_000)
    # without the program id's range there is nothing to split on
    assert not ka._by_cases(E.lt(E.add(g, 2), tiles), local, {}, 10_000)


def test_a_check_undecided_in_one_context_and_found_in_another_is_shown_once() -> None:
    """A helper's check left undecided in one launch context (NKI901) and shown as a finding in another is one
    diagnostic, the finding; an undecided check with no finding at that place stays, and so does another
    check's undecided copy there."""
    from nki_verify.api import _dedupe
    from nki_verify.diagnostics import UNDECIDED, Diagnostic, Location

    here = Location("k.py", 9, 30, 9, 40)
    elsewhere = Location("k.py", 12, 5, 12, 9)
    past = "this access pattern runs past the end of 'a' (a.shape[0]*a.shape[1] elements)"
    found = Diagnostic("NKI102", "error", past + " (element = 65536, size = 65536)", here, "copy_third_block")
    undecided = Diagnostic("NKI901", "warning", f"{UNDECIDED} (NKI102: {past}): the solver could not decide it",
                           here, "copy_some_block")
    before = Diagnostic("NKI901", "warning", f"{UNDECIDED} (NKI102: this access pattern reaches before the start of "
                        "'a'): it depends on <int()>, which the verifier could not determine", here, "copy_some_block")
    alone = Diagnostic("NKI901", "warning", f"{UNDECIDED} (NKI102: {past}): the solver could not decide it",
                       elsewhere, "copy_some_block")
    out = _dedupe([undecided, found, before, alone])
    assert found in out and alone in out and undecided not in out
    assert [d.code for d in out if d.location == here] == ["NKI102", "NKI901"]
    assert "reaches before the start" in [d for d in out if d.location == here and d.code == "NKI901"][0].message


def test_what_was_not_understood_on_a_line_nki_rejects_is_not_said_again() -> None:
    """An NKI902 on a line with a construct NKI rejects that the analysis reads as best it can (NKI610, an error)
    is that construct: only the error is shown.  On another line, or beside a finding of another kind, it stays."""
    from nki_verify.api import _dedupe
    from nki_verify.diagnostics import Diagnostic, Location

    rejected = Diagnostic("NKI610", "error", "this subscript mixes a slice with nl.arange/nl.mgrid index grids",
                          Location("k.py", 9, 30, 9, 40), "k")
    same_line = Diagnostic("NKI902", "warning", "shapes [(64,), (128,)] do not broadcast",
                           Location("k.py", 9, 12, 9, 50), "k")
    other_line = Diagnostic("NKI902", "warning", "subscripting a symbolic bool", Location("k.py", 11, 5, 11, 9), "k")
    bound = Diagnostic("NKI101", "warning", "index i is out of bounds", Location("k.py", 11, 7, 11, 8), "k")
    out = _dedupe([same_line, rejected, other_line, bound])
    assert same_line not in out and {rejected, other_line, bound} <= set(out)


def test_a_name_nothing_in_the_file_binds_is_an_error_unless_a_star_import_may_bind_it() -> None:
    body = """
        import nki
        import nki.isa as nisa
        import nki.language as nl
        {extra}

        @nki.jit
        def k(x):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=out, src=x[0:128, 0:width])
            return out
    """
    (d,) = verify_source(src(body.format(extra="")), "/tmp/k.py")
    assert (d.code, d.severity, d.line) == ("NKI608", "error", 10)
    assert "'width'" in d.message
    # a star import (or a write through globals()) may bind it: not judged, said not understood instead
    for extra in ("from os.path import *", "globals()['width'] = 512"):
        codes = {d.code for d in verify_source(src(body.format(extra=extra)), "/tmp/k.py")}
        assert "NKI608" not in codes and "NKI902" in codes, (extra, codes)
    # bound anywhere in the file (here as another function's parameter): not judged either
    codes = {d.code for d in verify_source(src(body.format(extra="def f(width): return width")), "/tmp/k.py")}
    assert "NKI608" not in codes


def test_debugging_builtins_and_calls_into_modules_not_found() -> None:
    """breakpoint() (the simulator's debugger stop) does nothing to the kernel and hex() of a known integer is
    its text; a call into a module no import resolved is said once, naming the module."""
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl
        from missing_kernels_pkg.views import View, make_view

        @nki.jit
        def k(x):
            assert x.shape == (128, 512), "expected " + hex(128)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            breakpoint()
            v = View(x)
            w = make_view(x)
            nisa.dma_copy(dst=out, src=x)
            return out
    """)
    diags = verify_source(text, "/tmp/k.py")
    assert [(d.code, d.line) for d in diags] == [("NKI902", 11)], diags
    assert "module 'missing_kernels_pkg' was not found" in diags[0].message


def test_a_module_not_found_is_said_once_per_kernel_and_not_at_each_use() -> None:
    """What a kernel takes from a module no import resolved (a helper's result used as an operand, a constant in
    arithmetic) is unknown: the module is said once per kernel where it is first used, also when the kernel is
    analysed twice (with and without an optional input), and not again as an unknown operand at each use.  What
    does not come from it is still checked (the slice one row late)."""
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl
        from missing_kernels_pkg.alloc import Allocator, BANK

        @nki.jit
        def k(x, bias=None):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            if bias is not None:
                b = Allocator(bias).alloc((128, 512))
                nisa.dma_copy(dst=b, src=bias)
            sb = Allocator(x)
            t = sb.alloc((128, 512))
            nisa.dma_copy(dst=t[0], src=x)
            nisa.dma_copy(dst=t[1], src=x)
            offset = 2 * BANK
            u = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=u, src=x[1:129, :])
            nisa.dma_copy(dst=out[0:offset, :], src=u[0:offset, :])
            return out
    """)
    diags = verify_source(text, "/tmp/k.py")
    found = sorted((d.code, d.line, d.severity) for d in diags)
    assert found == [("NKI101", 19, "error"), ("NKI901", 20, "warning"), ("NKI902", 11, "warning")], diags
    assert "module 'missing_kernels_pkg' was not found" in next(d for d in diags if d.code == "NKI902").message
    # a check that depends on what the module gives is undecided, with a note on where the unknown comes from
    undecided = next(d for d in diags if d.code == "NKI901")
    assert any("'missing_kernels_pkg'" in n.message and "--search-path" in n.message for n in undecided.notes), \
        undecided.notes


RANK_RUNS = src("""
    import nki
    import nki.isa as nisa
    import nki.language as nl

    def _last_dim(t):
        return t.shape[3]

    @nki.jit
    def mixed(x, w, v, use_big, scale=None):
        out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        if scale is not None:
            cols = _last_dim(scale)
        if len(w.shape) == 2:
            p, q = w.shape
            if use_big:
                a, b, c, d = v.shape
            else:
                a, b, c = v.shape
        elif len(w.shape) == 3:
            p, q, r = w.shape
        nisa.dma_copy(dst=out, src=x[0:128, 0:512])
        return out
""")


def test_what_rank_retries_learnt_in_a_split_is_reused_when_another_input_is_given(monkeypatch) -> None:
    # w's rank is dispatched on (2 or 3); in the run for rank 2, v is unpacked as 4-D on one path and 3-D on the
    # other (one run per rank); with scale given, the front end first learns its rank 4 (a retry), then meets w's
    # and v's ranks again: the split of v is taken from the run without scale, not found again by two retries
    from compiler.frontend import entry

    runs: list = []
    real = entry.run_kernel

    def counted(interp, kv, ctx):
        runs.append(dict(interp._rank_overrides))
        return real(interp, kv, ctx)

    monkeypatch.setattr(entry, "run_kernel", counted)
    r = analyze_source(RANK_RUNS, "mixed.py")
    def ranks(k) -> tuple:
        of = {t.name: len(t.shape) for t in k.tensors if t.kind == "param"}
        return "scale" in of, of["w"], of["v"] if of["w"] == 2 else None

    # each rank of v with w of rank 2, and w of rank 3, without and with scale
    assert sorted(ranks(k) for k in r.ir) == [(False, 2, 3), (False, 2, 4), (False, 3, None),
                                              (True, 2, 3), (True, 2, 4), (True, 3, None)]
    assert [(d.code, d.location.line) for d in r.diagnostics] == [("NKI101", 21)] * 2
    # 3 runs without scale that raise a retry, and none with it beyond learning scale's rank
    assert len(runs) == 10


def test_huge_counterexample_values_are_made_round_where_the_check_still_fails() -> None:
    """A model with an input value past SHRINK_ABOVE (the solver's 45833958401 rows) is made rounder one input at
    a time, each value kept only where the goal still fails and the facts hold, the loop index moved to the end
    of its range with it; values a fact ties together stay."""
    from compiler import expr as E
    from compiler import ir
    from nki_verify.analysis import engine

    n, m, t, i = E.Sym("n", 1), E.Sym("m", 2), E.Sym("t", 3), E.Sym("i", 4)
    span = ir.Span("k.py", 3, 1, 3, 9)
    tiles = E.floordiv(E.add(n, 127), 128)
    infos = tuple(ir.SymInfo(s, "shape", s.name, E.Const(1), None) for s in (n, m, t)) + (ir.SymInfo(i, "loop", "i"),)
    loop = ir.Loop(0, i, E.Const(0), tiles, E.ONE, "range", span, None, ir.B2)
    tied = E.eq(m, E.add(E.mul(2, t), 1))  # a kernel's fact, m == 2*t + 1: neither moves alone
    kernel = ir.Kernel("k", "k.py", span, ir.B2, "standalone", ("x",), infos, (loop,), (), (), (), (),
                       (ir.Assumption(tied, span, "assert"),), None, "trn2")
    ka = engine.KernelAnalysis(kernel, 1000)
    # the last row of tile i is in bounds of an n-row input (it is not for the last tile of an n not a multiple
    # of 128); m and t take part through the fact that ties them
    goal = E.band(E.lt(E.add(E.mul(128, i), 127), n), E.ge(E.add(m, t), 0))
    local = [E.ge(i, 0), E.lt(i, tiles)]
    ob = engine.Obligation("NKI101", goal, tuple(local), span, "the tile's last row past the end")
    huge = {n: 45833958401, m: 2 * 90000000 + 1, t: 90000000, i: 358077800}
    assert E.evaluate(goal, huge) is False
    shrunk = ka._shrunk(ob, local, huge)
    assert shrunk == {n: 129, m: 2 * 90000000 + 1, t: 90000000, i: 1}
    assert E.evaluate(goal, shrunk) is False and all(E.evaluate(f, shrunk) for f in local + [tied])
    # a value that is not past the bound is left, and so is a model that does not fail the goal
    assert ka._shrunk(ob, local, {**huge, n: 60001, i: 468}) == {**huge, n: 60001, i: 468}
    assert ka._shrunk(ob, local, {**huge, i: 0}) == {**huge, i: 0}


RANK_OFFSETS = '''
import nki
import nki.collectives as ncc
import nki.isa as nisa
import nki.language as nl


@nki.jit
def my_block(x):
    n, m = x.shape
    assert n == 4 * 128 and m == 512
    out = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.shared_hbm)
    rank = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.register_store(rank, ncc.rank_id())
    row = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=row, data=rank, op0=nl.multiply, operand0=128, op1=nl.minimum, operand1=BOUND)
    t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[m, 128], [1, m]], offset=0, scalar_offset=row, indirect_dim=0))
    nisa.dma_copy(dst=out, src=t)
    return out
'''


def test_a_rank_id_is_never_negative() -> None:
    # rows rank * 128 .. + 127, clamped above to the last block: in bounds, since a rank id is never negative
    assert verify_source(RANK_OFFSETS.replace("BOUND", "384"), "/tmp/k.py") == []
    # clamped one block too far: past the end (the offset counts rows of 512 elements), never before the start
    diags = verify_source(RANK_OFFSETS.replace("BOUND", "385"), "/tmp/k.py")
    assert [(d.code, d.location.line) for d in diags] == [("NKI102", 18)]
    assert "past the end" in diags[0].message


def test_a_rank_id_read_in_a_loop_is_never_negative() -> None:
    # the loop's end widens what its reads of runtime values assumed with what the body wrote: nothing, for a
    # rank id, whose own range stays
    diags = verify_source(RANK_IN_A_LOOP, "/tmp/k.py")
    assert [(d.code, d.location.line) for d in diags] == [("NKI102", 11)]
    assert "past the end" in diags[0].message


RANK_IN_A_LOOP = '''
import nki
import nki.collectives as ncc
import nki.isa as nisa
import nki.language as nl


def copy_block(x, out, r, m):
    t = nl.ndarray((128, m), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[m, 128], [1, m]], offset=0))
    nisa.dma_copy(dst=out.ap(pattern=[[m, 128], [1, m]], offset=0, scalar_offset=r, indirect_dim=0), src=t)


@nki.jit
def gather_blocks(x, replica_group):
    n, m = x.shape
    assert n == 128 and m == 512
    out = nl.ndarray((4 * 128, m), dtype=x.dtype, buffer=nl.shared_hbm)
    for c in range(2):
        r = ncc.collective_permute_implicit_current_processing_rank_id(iteration_id=0, channel_id=c,
                                                                       replica_group=replica_group)
        copy_block(x, out, r, m)
    return out
'''


def test_a_tensor_as_an_access_pattern_offset_says_where_it_goes() -> None:
    source = '''
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def row_at_a_tensor_offset(x, idx):
    assert x.shape == (512, 512) and idx.shape == (1, 1)
    row = nl.ndarray((1, 1), nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=row, src=idx)
    t = nl.ndarray((1, 512), x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x.ap(pattern=[[512, 1], [1, 512]], offset=row * 512))
    out = nl.ndarray((1, 512), x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out
'''
    # `row * 512` is already the error: a Beta-2 tensor has no operators (tracing raises TypeError)
    diags = verify_source(source, "/tmp/k.py")
    assert [(d.code, d.severity, d.location.line) for d in diags] == [("NKI609", "error", 13)]
    assert "scalar_offset=" in diags[0].message


def test_facts_past_settled_asserts_stay_plain_past_a_loop_analysed_speculatively() -> None:
    """A loop carrying a value is analysed by passes that are rolled back; what the assertions before it settled
    is still settled after it (the rollback drops only what the passes added): the next assertion's condition is
    assumed plainly, not as `cols % 128 != 0 or ... or rows % group == 0`."""
    from compiler import expr as E

    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        def require(cond, message):
            if not cond:
                raise ValueError(message)

        @nki.jit
        def k(x, group):
            rows, cols = x.shape
            require(group >= 2 and group % 2 == 0, "even group")
            require(cols % 128 == 0 and cols <= 4096, "whole tiles")
            a = nl.ndarray((128, 4096), dtype=x.dtype, buffer=nl.sbuf)
            nisa.memset(dst=a, value=0.0)
            offset = 0
            for i in range(cols // 128):
                nisa.tensor_copy(dst=a[0:128, offset:offset + 128], src=a[0:128, 0:128])
                offset += 128
            require(rows % group == 0, "rows split")
            return a
    """)
    res = analyze_source(text, "k.py")
    last = [a.cond for a in res.ir[0].assumptions if a.origin == "raise"][-1]
    assert E.short(last, None, 400) == "x.shape[0] % group == 0"
    assert res.diagnostics == []


def test_facts_past_settled_asserts_and_branches_are_stated_plainly() -> None:
    """A fact stated where the path holds only what earlier assertions and branches settled (past
    `require(group % 2 == 0)`, past an `if/elif` chain whose every side falls through or raises) is assumed
    without them: a divisor's `tile != 0`, not `group % 2 != 0 or ... or tile != 0`, so that the bound it gives
    the term (tile >= 1) is read by interval reasoning.  A condition of a branch still taken is kept."""
    from compiler import expr as E

    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        def require(cond, message):
            if not cond:
                raise ValueError(message)

        def lanes_for(group, wide):
            if wide:
                if group == 4:
                    return 2
                elif group == 8:
                    return 4
                else:
                    return 1
            return 1

        @nki.jit
        def k(x, group, wide):
            rows, cols = x.shape
            require(group >= 2 and group % 2 == 0, "even group")
            if cols > 512:
                lanes = 1
            elif cols > 256:
                lanes = 2
            else:
                raise ValueError("too narrow")
            lanes = lanes * lanes_for(group, wide)
            require(rows % (group * lanes) == 0, "rows split")
            local = rows // group // lanes
            tile = min(local, 128)
            tiles = (local + tile - 1) // tile
            if cols > 1024:
                spare = cols // (group - 2)
            a = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            nisa.memset(dst=a, value=0.0)
            return a
    """)
    res = analyze_source(text, "k.py")
    divisions = [a.cond for a in res.ir[0].assumptions if a.origin == "division"]
    assert len(divisions) == 2, [E.short(c, None, 200) for c in divisions]
    (tile_fact,) = [c for c in divisions if isinstance(c, E.Cmp)]
    assert isinstance(tile_fact.e, E.Min)
    ranges = {s.sym: E.Interval(s.lo.value if isinstance(s.lo, E.Const) else None, None)
              for s in res.ir[0].symbols}  # (the shapes from 1 up)
    for a in res.ir[0].assumptions:
        E.refine_ranges(ranges, a.cond)
    assert E.interval(tile_fact.e, ranges).lo == 1  # `tile != 0` of a tile that is never negative
    # the division under `cols > 1024` keeps that condition
    (kept,) = [c for c in divisions if not isinstance(c, E.Cmp)]
    assert "1024" in E.short(kept, None, 400)


def test_a_loop_in_one_branch_does_not_decide_the_branch_condition() -> None:
    """A loop's index range holds inside the loop: the branch decisions after a branch whose loop is empty on
    the other side (`for i in range(start % 32)` under `if start % 32 != 0:`) still see both sides, so the
    aligned start is copied from the input, not from the staging tile (before: a false NKI101 on it)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels", "b2_branch_loops.py")
    text = open(path, encoding="utf-8").read()
    res = analyze_source(text, path, Options(kernels=("rows_realigned",)))
    assert [k.name for k in res.kernels] == ["rows_realigned"]
    assert res.diagnostics == [], [d.message for d in res.diagnostics]


def test_a_chunked_loop_is_followed_when_the_kernel_has_spent_its_decisions(monkeypatch) -> None:
    """`remaining -= min(remaining, 32)` in a while loop: its step is -32 in every iteration but the last, proved
    for any start (the start a symbol of its own, a question of a few terms and no fact) outside the budget of
    the front end's decisions.  A large kernel spends that budget long before its last helpers run, and the loop
    was then not followed (NKI901 on every slice through `src_start`; nki-library's cross_partition_copy in
    moe_block_tkg)."""
    from nki_verify.analysis import oracle

    init = oracle.SolverOracle.__init__

    def one_call(self, *args, **kws) -> None:
        init(self, *args, **kws)
        self.budget = 1

    monkeypatch.setattr(oracle.SolverOracle, "__init__", one_call)
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl

        Q = 32

        @nki.jit
        def chunked_rows(x, start):
            n, m = x.shape
            assert n <= 128 and m <= 512 and 0 <= start < n
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
            first = Q - start % Q
            src_start = start + first
            dst_start = (start // Q + 1) * Q
            remaining = n - start - first
            while remaining > 0:
                chunk = min(remaining, Q)
                nisa.dma_copy(dst=out[dst_start:dst_start + chunk, :m], src=x[src_start:src_start + chunk, :])
                src_start += chunk
                dst_start += chunk
                remaining -= chunk
            return out
    """)
    res = analyze_source(text, "k.py")
    assert [d.code for d in res.diagnostics] == [], [d.message for d in res.diagnostics]


def test_an_optional_input_loaded_whole_is_a_tensor_whatever_its_name_holds_later() -> None:
    # neuronx-distributed's find_index: `start = nl.load(start)`, then arithmetic on the name (the loaded tile by
    # then); the arithmetic alone made the parameter an integer, and the load "src must be a tensor, got
    # symbolic int" (NKI902)
    text = B1_HEADER + src("""
        @nki.jit
        def k(x, start=None):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.load(x[0:128, 0:512])
            if start is not None:
                start = nl.load(start)
                start = start * 2
                t = nl.multiply(t, start)
            nl.store(out[0:128, 0:512], value=t)
            return out
    """)
    r = analyze_source(text, "/tmp/k.py")
    assert not [d for d in r.diagnostics if d.code == "NKI902"]
    # the given run loads a tensor of symbolic shape: its partitions are checked
    assert any(d.code == "NKI201" and "'start'" in d.message for d in r.diagnostics)


def test_a_tensor_annotation_outranks_arithmetic_on_the_name() -> None:
    # `row_start: nt.tensor = None`, the name later holding the loaded row (find_index's form, loaded through a
    # subscript here so that only the annotation says the parameter is a tensor)
    text = B1_HEADER + "import neuronxcc.nki.typing as nt\n" + src("""
        @nki.jit
        def k(x, row_start: nt.tensor = None):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.load(x[0:128, 0:512])
            if row_start is not None:
                row_start = helper_load(row_start)
                row_start = row_start * 2
                t = nl.multiply(t, row_start)
            nl.store(out[0:128, 0:512], value=t)
            return out

        def helper_load(r):
            return nl.load(r)
    """)
    r = analyze_source(text, "/tmp/k.py")
    assert not [d for d in r.diagnostics if d.code == "NKI902"]
    # the loaded row spans the input's partitions, whatever they are: checked as a tensor's
    assert any(d.code == "NKI201" and "row_start.shape[0] partitions" in d.message for d in r.diagnostics)


def test_a_constant_of_an_internal_nki_module_is_one_unknown_number() -> None:
    # `from neuronxcc.nki._pre_prod_kernels.x import TILE_SIZE`: not modelled, said once; the kernel is still
    # analysed with TILE_SIZE one number throughout (it was an NKI902 at every use and, the shape assert false,
    # every path failed)
    text = B1_HEADER + "from neuronxcc.nki._pre_prod_kernels.blockwise import TILE_SIZE\n" + src("""
        @nki.jit
        def k(x, w):
            assert w.shape == (TILE_SIZE, 2 * TILE_SIZE)
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            wt = nl.load(w[0:TILE_SIZE, 0:2 * TILE_SIZE])
            t = nl.load(x[0:128, 0:512])
            if TILE_SIZE > 64:
                t2 = nl.load(x[0:128, 0:513])
            nl.store(out[0:128, 0:512], value=t)
            return out
    """)
    lines = text.splitlines()
    load_w = next(i for i, t in enumerate(lines, 1) if "wt = " in t)
    past = next(i for i, t in enumerate(lines, 1) if "t2 = " in t)
    r = analyze_source(text, "/tmp/k.py")
    not_modelled = [d for d in r.diagnostics if d.code == "NKI902"]
    assert len(not_modelled) == 1 and "TILE_SIZE" in not_modelled[0].message
    assert not [d for d in r.diagnostics if "every path" in d.message]
    # the slice of w is within w's shape whatever TILE_SIZE is (the same number on both sides); whether the
    # tile fits the partitions depends on it, and is said so
    at_load = [d for d in r.diagnostics if d.line == load_w]
    assert [d.code for d in at_load] == ["NKI901"] and "TILE_SIZE partitions" in at_load[0].message
    # past the end of x whatever TILE_SIZE is, where the branch on it runs: a finding, not NKI901 (a warning:
    # whether the constant's real value takes the branch is not known)
    at_past = [(d.code, d.severity) for d in r.diagnostics if d.line == past]
    assert at_past == [("NKI101", "warning")]


def test_a_circulant_constant_has_the_shape_of_its_first_column() -> None:
    # scipy.linalg.circulant(c) is len(c) x len(c), and np.kron of it with an identity a block diagonal: the
    # constant built from them is (n_blocks * 32) x (n_blocks * 32), what the loads' checks are about
    text = B1_HEADER + "import numpy as np\nfrom scipy.linalg import circulant\n" + src("""
        def rotation(n_blocks):
            base = np.zeros(32)
            base[1] = 1
            return np.kron(np.eye(n_blocks), circulant(base)).astype(np.float32)

        @nki.jit
        def k(x):
            assert x.shape == (128, 512)
            r = nl.load(nl.shared_constant(rotation(4)))
            r2 = nl.load(nl.shared_constant(rotation(5)))
            out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
            nl.store(out, value=nl.matmul(r, nl.load(x), transpose_x=True))
            return out
    """)
    r = analyze_source(text, "/tmp/k.py")
    assert not [d for d in r.diagnostics if d.code in ("NKI901", "NKI902")]
    wide = [d for d in r.diagnostics if d.code == "NKI201"]
    assert len(wide) == 1 and "160 partitions" in wide[0].message and wide[0].severity == "error"


def test_a_parameter_every_call_passes_a_float_is_a_number() -> None:
    # the kernel only divides a tile by `scale` and masks with `fill`: nothing in it says they are numbers, but
    # the module's call passes math.sqrt(...) and torch.finfo(...).min (it was a tensor in HBM: NKI303, NKI501)
    text = B1_HEADER + "import math\nimport torch\n" + src("""
        @nki.jit
        def scaled(x, scale, fill):
            assert x.shape == (128, 512)
            out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
            t = nl.load(x) / scale
            nl.store(out, value=nl.where(t > 0, t, fill))
            return out

        class Attention:
            def forward(self, q):
                return scaled(q, math.sqrt(self.head_dim), torch.finfo(q.dtype).min)
    """)
    r = analyze_source(text, "/tmp/k.py")
    assert r.diagnostics == []
    # a call that passes something else for it (a name, here) leaves the parameter to the kernel's own uses
    r = analyze_source(text + "\n\ndef other(q, s):\n    return scaled(q, s, -1.0)\n", "/tmp/k.py")
    assert any(d.code == "NKI303" and "'scale'" in d.message for d in r.diagnostics)
    assert not any("'fill'" in d.message for d in r.diagnostics)


def test_every_path_failing_in_an_assertion_helper_names_where_the_helper_was_called(tmp_path) -> None:
    # the kernel calls a library function whose `check(...)` (an assertion helper) fails for the arguments it
    # passes: the failing line is the helper's own assert, which says nothing; its caller's line says which
    # condition it is
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "checks.py").write_text("def check(cond, text):\n    assert cond, f'invalid: {text}'\n")
    (tmp_path / "lib" / "ops.py").write_text(src("""
        from .checks import check

        def scale_rows(x, skip_store=False):
            check(not skip_store, "skip_store is not supported")
            return x
    """))
    text = src("""
        import nki
        import nki.language as nl
        from lib.ops import scale_rows

        @nki.jit
        def k(x):
            out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
            scale_rows(x, skip_store=True)
            return out
    """)
    (d,) = verify_source(text, str(tmp_path / "k.py"))
    assert d.code == "NKI901" and "every path through this kernel fails" in d.message
    assert "fails at checks.py:2, called at ops.py:4 (reached through the call at line 8)" in d.message


def test_syntax_newer_than_the_running_python_is_said() -> None:
    # PEP 695 type parameters parse from Python 3.12: on an older interpreter the NKI999 says why
    import sys

    text = B1_HEADER + src("""
        @nki.jit
        def k[tile](x):
            return x
    """)
    codes = [(d.code, d.message) for d in verify_source(text, "/tmp/k.py")]
    if sys.version_info < (3, 12):
        assert len(codes) == 1 and codes[0][0] == "NKI999"
        assert "type parameters (`def f[T](...)`) is Python 3.12 syntax" in codes[0][1]
        assert f"nki-verify runs on Python {sys.version_info.major}.{sys.version_info.minor}" in codes[0][1]
    else:
        assert not [c for c, _ in codes if c == "NKI999"]
    # so does an f-string that reuses its quotes inside a replacement field (a benchmark script's message)
    nested = B1_HEADER + "def report(r):\n    print(f\"{r[f'{r['kernel']}_bytes'] / 2**20:.2f} MiB\")\n"
    codes = [(d.code, d.message) for d in verify_source(nested, "/tmp/k.py")]
    if sys.version_info < (3, 12):
        assert len(codes) == 1 and "an f-string whose replacement field holds" in codes[0][1], codes
    else:
        assert not [c for c, _ in codes if c == "NKI999"]
    # an ordinary syntax error says nothing of versions
    (d,) = verify_source(B1_HEADER + "def k(x:\n    return x\n", "/tmp/k.py")
    assert d.code == "NKI999" and "syntax;" not in d.message


def test_a_slice_beside_an_index_grid_is_reported_and_read_as_the_grid_of_its_elements() -> None:
    # NKI rejects the mix (NKI610); the slice is read as the elements it selects, so its bounds are checked too
    # (it was NKI902, and the load was not checked at all)
    text = B1_HEADER + src("""
        @nki.jit
        def copy_wide(a):
            assert a.shape == (128, 512)
            out = nl.ndarray((128, 1024), dtype=a.dtype, buffer=nl.shared_hbm)
            i_p = nl.arange(128)[:, None]
            tile = nl.load(a[i_p, 0:1024])
            nl.store(out[i_p, nl.arange(1024)[None, :]], value=tile)
            return out
    """)
    found = sorted((d.code, d.severity, d.location.line, d.location.column) for d in verify_source(text, "/tmp/k.py"))
    line = text.splitlines().index("    tile = nl.load(a[i_p, 0:1024])") + 1
    assert found == [("NKI101", "error", line, 27), ("NKI610", "error", line, 27)]
    # within bounds: the mix alone
    found = [d.code for d in verify_source(text.replace("1024", "512"), "/tmp/k.py")]
    assert found == ["NKI610"]


def test_a_slice_beside_one_dimensional_grids_keeps_its_own_axis_as_numpy_does() -> None:
    # `t[:, nl.arange(64)]` (rejected too): numpy gives (128, 64), the slice's axis then the grid's; a store of it
    # into a (128, 64) tensor matches, and a grid past the tile's columns is out of bounds. Grids separated by a
    # slice go first (`u[nl.arange(4), :, nl.arange(4)]` is (4, 128))
    text = B1_HEADER + src("""
        @nki.jit
        def columns(a):
            assert a.shape == (128, 512)
            out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
            tile = nl.load(a[:, :])
            part = tile[:, 448 + nl.arange(64)]
            nl.store(out, value=part)
            return out
    """)
    line = text.splitlines().index("    part = tile[:, 448 + nl.arange(64)]") + 1
    assert [(d.code, d.location.line) for d in verify_source(text, "/tmp/k.py")] == [("NKI610", line)]
    found = sorted((d.code, d.location.line) for d in verify_source(text.replace("448", "449"), "/tmp/k.py"))
    assert found == [("NKI101", line), ("NKI610", line)]
    from compiler.frontend import values as V
    from compiler.frontend.tensors import _numpy_places

    g = V.IndexGrid(0, (4,), ())
    assert _numpy_places([g, slice(None), g], [1], 1) == {1: 1, "block": 0, "rank": 2}
    assert _numpy_places([slice(None), g, g], [0], 1) == {0: 0, "block": 1, "rank": 2}
    assert _numpy_places([V.IndexGrid(0, (128, 1), ()), slice(0, 512)], [1], 2) is None


def test_a_finding_names_each_quantity_once() -> None:
    # the partition rule of an elementwise op has two conditions on the same two counts: each shown once
    text = B1_HEADER + src("""
        @nki.jit
        def add(a, b):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            res = nl.add(nl.load(a), nl.load(b))
            nl.store(out, value=res)
            return out
    """)
    found = [d for d in verify_source(text, "/tmp/add.py") if "partition count" in d.message]
    assert found, verify_source(text, "/tmp/add.py")
    quantities = found[0].message.rsplit(" (", 1)[1].rstrip(")").split(", ")
    assert len(quantities) == len(set(quantities)) == 2, found[0].message


def test_a_product_of_dimensions_is_suggested_as_the_precondition() -> None:
    # a batch's rows flattened into one tile's partitions: the precondition is on their product
    text = src("""
        import nki
        import nki.isa as nisa
        import nki.language as nl


        @nki.jit
        def flat(a):
            b, s, h = a.shape
            out = nl.ndarray((b * s, h), dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((b * s, h), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=a.reshape((b * s, h)))
            nisa.dma_copy(dst=out, src=t)
            return out
    """)
    (d,) = verify_source(text, "/tmp/flat.py")
    assert d.code == "NKI201" and d.suggestion == "assert a.shape[0]*a.shape[1] <= 128", d
    # stated, it settles the check
    assert verify_source(text.replace("b, s, h = a.shape", "b, s, h = a.shape\n    assert b * s <= 128"),
                         "/tmp/flat.py") == []
