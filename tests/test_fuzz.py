"""No input makes the verifier raise: garbage text and random kernel-like programs give diagnostics only."""

from __future__ import annotations

from hypothesis import given, strategies as st

from nki_verify import verify_source
from nki_verify.rules import RULES

HEADERS = [
    "import nki\nimport nki.isa as nisa\nimport nki.language as nl\n",
    "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n",
]

EXPRS = st.sampled_from(["0", "1", "128", "P", "F", "i", "i * 128", "(i + 1) * 128", "P // 128", "F % 7", "-1",
                         "min(P, 128)", "max(F, 1)", "len(x.shape)", "x.shape[0]", "x.shape[-1]", "n", "None",
                         "nl.tile_size.pmax", "2 ** 3", "P - F", "i // 0", "[1, 2][i]", "(P, F)[1]"])
STMTS = st.sampled_from([
    "t = nl.ndarray(({a}, {b}), dtype=nl.float32, buffer=nl.sbuf)",
    "nisa.dma_copy(dst=t[0:{a}, 0:{b}], src=x[{a}:{b}, :])",
    "nisa.tensor_tensor(dst=t, data1=t, data2=t[0:{a}], op=nl.add)",
    "n = {a} + {b}",
    "assert {a} <= {b}",
    "if {a} > {b}:\n        n = {a}\n    else:\n        n = {b}",
    "for i in nl.affine_range({a}):\n        n = i * {b}",
    "acc = nl.ndarray(({a}, 512), dtype=nl.float32, buffer=nl.psum)",
    "nisa.nc_matmul(dst=acc, stationary=t, moving=t[0:{a}, 0:{b}])",
    "lst = [nl.ndarray((128, {b}), dtype=nl.float32, buffer=nl.sbuf) for _ in range({a})]",
    "y = nl.load(x[{a}:{b}])",
    "nl.store(out[0:{a}], value=t)",
    "while n > {a}:\n        n = n - 1",
    "t2 = t.reshape(({a}, {b}))",
    "v = t.ap(pattern=[[{a}, 128], [1, {b}]], offset=0)",
    "raise ValueError('x')",
    "return out",
])


@st.composite
def programs(draw) -> str:
    header = draw(st.sampled_from(HEADERS))
    body = []
    for _ in range(draw(st.integers(1, 8))):
        body.append("    " + draw(STMTS).format(a=draw(EXPRS), b=draw(EXPRS)))
    return (header + "\n\n@nki.jit\ndef k(x, n=4):\n    P, F = x.shape\n"
            "    out = nl.ndarray((P, F), dtype=x.dtype, buffer=nl.shared_hbm)\n"
            "    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)\n"
            + "\n".join(body) + "\n    return out\n")


def _check(diags: list, text: str) -> None:
    n_lines = max(1, len(text.splitlines()) + 1)
    for d in diags:
        assert d.code in RULES, d
        assert d.severity in ("error", "warning", "info")
        assert 1 <= d.line <= n_lines + 1
        assert "Traceback" not in d.message


@given(st.text(max_size=400))
def test_garbage_text(text: str) -> None:
    _check(verify_source(text, "garbage.py"), text)


@given(st.binary(max_size=200).map(lambda b: b.decode("utf-8", errors="replace")))
def test_garbage_bytes(text: str) -> None:
    text = "import nki\n" + text
    _check(verify_source(text, "garbage.py"), text)


@given(programs())
def test_random_kernel_programs(text: str) -> None:
    diags = verify_source(text, "prog.py")
    _check(diags, text)
    assert not any("internal error" in d.message for d in diags), [d.message for d in diags]
