"""Hover text: pure functions of the document text, a position and the last analysis (never a new one).

* a rule code in a suppression comment: the rule's documentation;
* an `nki.isa` / `nki.language` call: the instruction's one-line spec and signature;
* a loop index: its loop kind and range;
* a tensor name: buffer, shape (symbolic, and concrete when every dimension is known), dtype, address.
"""

from __future__ import annotations

import re
from typing import Sequence

from compiler import expr as E
from compiler import ir, spec
from nki_verify import rules

CODE = re.compile(r"NKI\d{3}", re.IGNORECASE)
SUPPRESSION = re.compile(r"#\s*nki-verify\s*:", re.IGNORECASE)
WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
DOTTED = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(?:\s*\.\s*[A-Za-z_][A-Za-z_0-9]*)*")
IMPORT_AS = re.compile(r"^\s*import\s+((?:neuronxcc\.)?nki\.(?:isa|language))\s+as\s+(\w+)", re.MULTILINE)
FROM_IMPORT = re.compile(r"^\s*from\s+((?:neuronxcc\.)?nki)\s+import\s+(isa|language)(?:\s+as\s+(\w+))?",
                         re.MULTILINE)


def hover_markdown(text: str, path: str, line: int, column: int, kernels: Sequence[ir.Kernel]) -> str | None:
    """Markdown for the hover at 0-based `line`, code point `column`; None when there is nothing to say."""
    lines = text.splitlines()
    if line >= len(lines):
        return None
    src = lines[line]
    rule_doc = _rule_in_comment(src, column)
    if rule_doc is not None:
        return rule_doc
    span = _token_at(DOTTED, src, column)
    if span is None:
        return None
    dotted = re.sub(r"\s+", "", src[span[0]:span[1]])
    word_span = _token_at(WORD, src, column)
    word = src[word_span[0]:word_span[1]] if word_span else ""
    kernel = _kernel_at(kernels, path, line + 1)
    found = _instruction(text, dotted, word, kernel, line + 1)
    if found is None and kernel is not None and dotted == word:
        found = _loop_index(kernel, word, line + 1) or _tensor(kernel, path, word, line + 1)
    return found


def _token_at(pattern: re.Pattern, src: str, column: int) -> tuple[int, int] | None:
    for m in pattern.finditer(src):
        if m.start() <= column <= m.end():  # the cursor just after a name still hovers it
            return m.start(), m.end()
    return None


def _rule_in_comment(src: str, column: int) -> str | None:
    sup = SUPPRESSION.search(src)
    if sup is None or column < sup.start():
        return None
    for m in CODE.finditer(src, sup.start()):
        if m.start() <= column <= m.end():
            rule = rules.RULES.get(m.group(0).upper())
            return rule.markdown() + f"\n[Documentation]({rule.help_uri})" if rule else None
    return None


def _kernel_at(kernels: Sequence[ir.Kernel], path: str, line: int) -> ir.Kernel | None:
    """The kernel whose `def` is the nearest one above `line` (kernel spans cover only the header)."""
    best = None
    for k in kernels:
        if k.span.file == path and k.span.line <= line and (best is None or k.span.line > best.span.line):
            best = k
    return best


def _names(kernel: ir.Kernel):
    labels = {info.sym: info.label for info in kernel.symbols}
    return lambda s: labels.get(s, s.name)


def _show(e: E.Expr, kernel: ir.Kernel) -> str:
    return E.short(e, _names(kernel), limit=60)


def _module_aliases(text: str) -> dict[str, str]:
    """Local names of nki.isa / nki.language in this file ("nisa" -> "isa")."""
    out = {"nisa": "isa", "nl": "language"}
    for m in IMPORT_AS.finditer(text):
        out[m.group(2)] = m.group(1).rsplit(".", 1)[1]
    for m in FROM_IMPORT.finditer(text):
        out[m.group(3) or m.group(2)] = m.group(2)
    return out


def _instruction(text: str, dotted: str, word: str, kernel: ir.Kernel | None, line: int) -> str | None:
    parts = dotted.split(".")
    if len(parts) < 2 or parts[-1] != word:
        return None
    module = _module_aliases(text).get(parts[-2]) or (parts[-2] if parts[-2] in ("isa", "language") else None)
    if module is None and kernel is not None:  # e.g. `import nki; nki.isa.foo` spelled another way
        for ins in kernel.instrs:
            if ins.span.line <= line <= ins.span.end_line and ins.op.rsplit(".", 1)[-1] == word:
                module = ins.op.split(".")[0]
                break
    ins = spec.find(f"{module}.{word}") if module else None
    if ins is None:
        return None
    dialect = kernel.dialect if kernel is not None else ir.B2
    sig = ins.signature(dialect) or ins.b2 or ins.b1
    head = f"```python\n{ins.module}.{ins.name}({sig.text if sig else '...'})\n```"
    targets = ", ".join(sorted(ins.targets))
    return f"{head}\n{ins.summary}\n\n*engine:* {ins.engine} · *targets:* {targets}"


def _loop_index(kernel: ir.Kernel, word: str, line: int) -> str | None:
    names = _names(kernel)
    best = None
    for lp in kernel.loops:
        if names(lp.var) == word and lp.span.line <= line and (best is None or lp.span.line > best.span.line):
            best = lp
    if best is None:
        return None
    step = "" if best.step == E.ONE else f", {_show(best.step, kernel)}"
    rng = f"range({_show(best.start, kernel)}, {_show(best.stop, kernel)}{step})"
    return f"```python\n{word} in {rng}\n```\nloop index of a `{best.kind}` loop (line {best.span.line})"


def _tensor(kernel: ir.Kernel, path: str, word: str, line: int) -> str | None:
    cands = [t for t in kernel.tensors if t.name == word and t.span.file in (path, "<unknown>")]
    if not cands:
        return None
    before = [t for t in cands if t.span.line <= line]
    t = max(before, key=lambda t: (t.span.line, t.span.col)) if before else cands[0]
    shape = "[" + ", ".join(_show(d, kernel) for d in t.shape) + "]"
    dtype = t.dtype.lstrip("?") if t.dtype else "(dtype unknown)"  # "?a.dtype": a's dtype, not known statically
    out = [f"```python\n{t.name}: {t.buffer} {shape} {dtype}\n```"]
    if t.shape and all(isinstance(d, E.Const) for d in t.shape):
        out.append("concrete shape: (" + ", ".join(str(d.value) for d in t.shape) + ")")
    else:
        out.append("symbolic shape: the dimensions are the kernel's inputs (give `shapes` in the configuration "
                   "to make them concrete)")
    if t.address is not None:
        out.append("address: (" + ", ".join(_show(a, kernel) for a in t.address) + ")")
    where = "parameter" if t.kind == "param" else f"{t.kind}, line {t.span.line}"
    per = " (one per iteration of its enclosing loop)" if t.loops else ""
    out.append(f"*{where}*{per} · kernel `{kernel.name}` ({kernel.context})")
    return "\n\n".join(out)
