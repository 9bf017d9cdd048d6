"""Language lints of Beta-2 (`nki`) kernels: NKI601-NKI606.

Each rule was checked against the public corpus before shipping: nki-library is compiled by the current
NKI compiler, so a construct it uses inside kernels is allowed (`is None`, `@nki.jit` functions calling
each other, `nl.load`/`nl.store`).  Rules that depend on the NKI version take `Options.nki_version`
(default: the newest documented, 0.6):

* NKI602 `nl.load` / `nl.store`: only for 0.2 (removed in 0.2.0, back as wrappers in 0.3.0);
* NKI602 nested slicing: before 0.5 (0.5.0 made views composable);
* NKI603 `@nki.jit` on a sub-kernel: before 0.3 (the 0.2.0 migration guide requires removing it; the
  current library does it everywhere);
* NKI601 `neuronxcc.nki` inside an `nki` kernel: an error from 0.4.0, a warning before.

Not a rule, although older notes say so: `is None` / `is not None`, and raw integers for ISA enums
(`dge_mode=3`): the current library does both.

Lints run inside the abstract interpreter, where aliases are resolved and the kernel's dialect is known;
fixes are text edits on the spans the interpreter already has.
"""

from __future__ import annotations

import ast
from typing import Any

from .. import ir
from .astwalk import walk
from . import values as V

NEWEST = (0, 6)
B1_ONLY_API = {
    "language.arange": "nl.arange index vectors were removed: index with integer slices (or .ap())",
    "language.mgrid": "nl.mgrid index grids were removed: index with integer slices (or .ap())",
    "language.par_dim": "nl.par_dim and block dimensions were removed: the partition dimension is always dim 0; "
                        "use a Python list of tiles or fold blocks into the free dimensions",
}


def parse_version(v: str | None) -> tuple:
    if not v:
        return NEWEST
    parts = []
    for p in str(v).split("."):
        digits = "".join(ch for ch in p if ch.isdigit())
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts) or NEWEST


class LintMixin:
    """Mixed into the interpreter."""

    def version_before(self, *v: int) -> bool:
        return parse_version(getattr(self.options, "nki_version", None)) < tuple(v)

    def in_b2_kernel(self) -> bool:
        return self.kb is not None and self.kb.dialect == ir.B2

    def lint(self, code: str, message: str, node: Any, fixes: tuple = (), severity: str | None = None) -> None:
        if self.kb is not None:
            self.kb.issue(code, message, self.span(node), severity, fixes)

    # ------------------------------------------------------------------ API use
    def lint_api_call(self, fn: V.ApiVal, kwargs: dict, node: Any) -> None:
        """Beta-1 namespace or API inside a Beta-2 kernel (NKI601 / NKI602)."""
        if not self.in_b2_kernel():
            return
        if fn.dialect == ir.B1:
            sev = None if not self.version_before(0, 4) else "warning"
            self.lint("NKI601", f"neuronxcc.nki.{fn.path} is the Beta-1 namespace: inside an `nki` kernel it is a "
                      f"compilation error since NKI 0.4.0; use nki.{fn.path}", node, severity=sev)
            return
        why = B1_ONLY_API.get(fn.path)
        if why is not None:
            self.lint("NKI602", f"nl.{fn.spec_name}: {why}", node, self._grid_fixes(node))
        elif fn.path in ("language.load", "language.store") and self.version_before(0, 3) and \
                not self.version_before(0, 2):
            self.lint("NKI602", f"nl.{fn.spec_name} was removed in NKI 0.2 (it came back in 0.3): use "
                      f"nisa.dma_copy", node)
        if "mask" in kwargs and kwargs["mask"] is not None:
            kw = next((k for k in getattr(node, "keywords", ()) if k.arg == "mask"), None)
            self.lint("NKI602", "mask= was removed: bound the slices instead (min()/slice() for tail tiles)",
                      kw.value if kw is not None else node)

    def _grid_fixes(self, node: Any) -> tuple:
        """`i_p, i_f = nl.mgrid[0:128, 0:512]` and `i = nl.arange(n)[:, None]` used only as whole subscript
        items become integer slices: drop the assignment, rewrite each `t[i_p, i_f]` as `t[0:128, 0:512]`."""
        st = self.current_stmt
        func = self.frame.func if self.frames else None
        fn_node = func.node if func is not None else None
        if not isinstance(st, ast.Assign) or len(st.targets) != 1 or fn_node is None:
            return ()
        names = _grid_slices(st)
        if not names:
            return ()
        edits = []
        for sub in walk(fn_node):
            if isinstance(sub, ast.Name) and sub.id in names and sub is not st.targets[0] and \
                    not _inside(sub, st):
                if not _is_subscript_item(fn_node, sub):
                    return ()  # used in arithmetic or a mask: not mechanical
                edits.append((self.span(sub), names[sub.id]))
        if not edits:
            return ()
        whole = self.span(st)
        line = ir.Span(whole.file, whole.line, 1, whole.end_line + 1, 1)
        return (("replace the index grid with integer slices", tuple([(line, "")] + edits)),)

    # ------------------------------------------------------------------ ISA calls
    def lint_isa_form(self, ins: Any, form: str, bound: dict, node: Any) -> None:
        """A Beta-2 kernel calling an ISA instruction in its Beta-1 (value-returning) form (NKI606)."""
        if not self.in_b2_kernel() or form != "beta1" or ins.module != "isa" or ins.b2 is None:
            return
        if ins.operand("dst") is None:
            return
        fixes = self._dst_fixes(ins, node)
        self.lint("NKI606", f"nisa.{ins.name} without dst: in Beta 2 every ISA call writes an explicit dst "
                  f"(its first argument) and returns nothing", node, fixes)

    def _dst_fixes(self, ins: Any, node: Any) -> tuple:
        """`t[...] = nisa.op(a, b)` -> `nisa.op(dst=t[...], a=..., b=...)`, and `t = nisa.op(x, ...)` (a tile shaped
        like an operand) -> an allocation plus the dst call."""
        st = self.current_stmt
        if not isinstance(node, ast.Call) or not isinstance(st, ast.Assign) or st.value is not node or \
                len(st.targets) != 1:
            return ()
        args = _keyword_args(ins, node)
        if args is None:
            return ()
        target = st.targets[0]
        callee = ast.unparse(node.func)
        indent = " " * st.col_offset
        if isinstance(target, ast.Subscript):
            call = f"{callee}(dst={ast.unparse(target)}{''.join(', ' + a for a in args)})"
            return ((f"write into {ast.unparse(target)} with dst=", ((self.span(st), call),)),)
        if isinstance(target, ast.Name) and ins.result is not None and ins.result.shape[0] == "like":
            like = _arg_text(ins, node, ins.result.shape[1])
            if like is None:
                return ()
            buf = "nl.psum" if ins.result.buffer == "psum" else "nl.sbuf"
            alloc = f"{target.id} = nl.ndarray({like}.shape, dtype={like}.dtype, buffer={buf})"
            call = f"{callee}(dst={target.id}{''.join(', ' + a for a in args)})"
            return ((f"allocate {target.id} and pass it as dst=", ((self.span(st), f"{alloc}\n{indent}{call}"),)),)
        return ()

    # ------------------------------------------------------------------ Python subset
    def lint_kernel_signature(self, fn: V.FunctionVal) -> None:
        if not self.in_b2_kernel():
            return
        a = fn.node.args
        if a.kwonlyargs and not a.vararg and not self.version_before(0, 3):
            # (NKI 0.2 accepted the separator; the migration guide's 0.3.0 changes remove it)
            self.lint("NKI601", "a `*` separator in a kernel's signature is not accepted by the NKI compiler: make "
                      "these parameters positional", fn.node)
        for p in a.posonlyargs + a.args + a.kwonlyargs:
            ann = ast.unparse(p.annotation) if p.annotation is not None else ""
            if ann.split("[")[0].split(".")[-1] in ("list", "List"):
                self.lint("NKI601", f"kernel parameter '{p.arg}' is a list: kernel arguments must be tensors, "
                          f"scalars or tuples; pass a tuple", p)

    def lint_instantiate(self, cls: V.ClassVal, node: Any) -> None:
        if not self.in_b2_kernel() or cls.is_enum or _inherits_nkiobject(cls):
            return
        self.lint("NKI601", f"class {cls.name} is instantiated inside a kernel but does not inherit from "
                  f"nl.NKIObject (the NKI compiler only accepts NKIObject subclasses and enums)", node)

    def lint_dict_keys(self, keys: list, node: Any) -> None:
        if not self.in_b2_kernel():
            return
        for k in keys:
            if k is not None and not isinstance(k, str):
                shown = repr(k) if isinstance(k, (int, float, bool, tuple)) else V.describe(k)
                self.lint("NKI604", f"dict key {shown}: dicts inside a kernel take string keys only", node)
                return

    def lint_buffer_string(self, value: Any, node: Any) -> None:
        if not self.in_b2_kernel() or not isinstance(value, str):
            return
        kw = next((k for k in getattr(node, "keywords", ()) if k.arg == "buffer"), None)
        where = kw.value if kw is not None else node
        fix = ()
        if kw is not None and isinstance(kw.value, ast.Constant):
            fix = ((f"use nl.{value}", ((self.span(kw.value), f"nl.{value}"),)),)
        self.lint("NKI601", f"buffer '{value}' given as a string: use nl.{value}", where, fix)

    def lint_while_register(self, st: ast.While, reg: V.Register) -> None:
        if not self.in_b2_kernel() or not isinstance(st.test, ast.Name):
            return
        name = st.test.id
        if not _updates_register(st.body, name):
            self.lint("NKI605", f"this dynamic loop never updates '{name}' in its body: it runs forever or not at "
                      f"all (update it with nisa.register_load or nisa.register_move)", st.test)

    def lint_subkernel(self, k: V.KernelVal, node: Any) -> None:
        if self.in_b2_kernel() and self.version_before(0, 3):
            self.lint("NKI603", f"{k.func.name} is decorated with @nki.jit and called from another kernel: NKI "
                      f"{'.'.join(map(str, parse_version(self.options.nki_version)))} requires sub-kernels without "
                      f"the decorator", node)

    def lint_nested_slice(self, tv: V.TensorVal, node: Any) -> None:
        view = tv.view
        if self.in_b2_kernel() and self.version_before(0, 5) and (
                view.offset != 0 or tuple(view.shape) != tuple(tv.tensor.shape)):
            self.lint("NKI602", "slicing a slice (nested slicing) is not available before NKI 0.5: index the "
                      "tensor once", node)


# ----------------------------------------------------------------------------- helpers


def _inherits_nkiobject(cls: Any, depth: int = 0) -> bool:
    if depth > 20:
        return False
    for b in cls.bases:
        if isinstance(b, V.ApiVal) and b.path.endswith("NKIObject"):
            return True
        if isinstance(b, V.ExternalVal) and b.path.endswith("NKIObject"):
            return True
        if isinstance(b, V.ClassVal) and (b.is_enum or _inherits_nkiobject(b, depth + 1)):
            return True
    return False


def _grid_slices(st: ast.Assign) -> dict:
    """Names bound by `a, b = nl.mgrid[s0, s1]` or `a = nl.arange(n)[:, None]` -> the slice text."""
    v, t = st.value, st.targets[0]
    if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Attribute) and v.value.attr == "mgrid":
        items = v.slice.elts if isinstance(v.slice, ast.Tuple) else [v.slice]
        names = t.elts if isinstance(t, ast.Tuple) else [t]
        if len(items) == len(names) and all(isinstance(i, ast.Slice) and i.step is None for i in items) and \
                all(isinstance(n, ast.Name) for n in names):
            return {n.id: f"{ast.unparse(i.lower) if i.lower else '0'}:{ast.unparse(i.upper)}"
                    for n, i in zip(names, items)}
        return {}
    call = v.value if isinstance(v, ast.Subscript) else v
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "arange" and \
            isinstance(t, ast.Name) and 1 <= len(call.args) <= 2 and not call.keywords:
        lo, hi = ("0", ast.unparse(call.args[0])) if len(call.args) == 1 else (
            ast.unparse(call.args[0]), ast.unparse(call.args[1]))
        return {t.id: f"{lo}:{hi}"}
    return {}


def _inside(n: ast.AST, st: ast.AST) -> bool:
    return any(x is n for x in walk(st))


def _is_subscript_item(fn_node: ast.AST, name: ast.Name) -> bool:
    for sub in walk(fn_node):
        if isinstance(sub, ast.Subscript):
            items = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
            if any(i is name for i in items):
                return True
    return False


def _keyword_args(ins: Any, node: ast.Call) -> list | None:
    """The call's arguments re-spelled as Beta-2 keywords (None when one has no Beta-2 counterpart)."""
    from .. import spec

    sig1, sig2 = ins.b1, ins.b2
    out = []
    for name, a in zip(sig1.positional, node.args):
        role = spec.param_role(ins, "beta1", name)
        if role not in sig2.names or isinstance(a, ast.Starred):
            return None
        out.append(f"{role}={ast.unparse(a)}")
    for kw in node.keywords:
        if kw.arg is None:
            return None
        role = spec.param_role(ins, "beta1", kw.arg)
        if role not in sig2.names:
            return None
        out.append(f"{role}={ast.unparse(kw.value)}")
    return out


def _arg_text(ins: Any, node: ast.Call, role: str) -> str | None:
    from .. import spec

    for name, a in zip(ins.b1.positional, node.args):
        if spec.param_role(ins, "beta1", name) == role:
            return ast.unparse(a)
    for kw in node.keywords:
        if kw.arg is not None and spec.param_role(ins, "beta1", kw.arg) == role:
            return ast.unparse(kw.value)
    return None


def _updates_register(body: list, name: str) -> bool:
    for st in body:
        for n in walk(st):
            if isinstance(n, ast.Call):
                fname = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
                args = list(n.args) + [k.value for k in n.keywords]
                if any(isinstance(a, ast.Name) and a.id == name for a in args):
                    if fname in ("register_store",):
                        continue  # reads the register
                    return True  # register_load / register_move, or a helper that may update it
            if isinstance(n, (ast.Assign, ast.AugAssign)):
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    return True
    return False
