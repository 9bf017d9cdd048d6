"""The three properties of the cross-check, on one generated program.

1. soundness: a code the verifier does not report (as an error, a warning or an undecided NKI901) never
   faults on the device for admissible inputs (codes the device checks and the verifier implements);
2. counterexample replay: a diagnostic with a counterexample, replayed on the device with exactly those
   shapes, faults with the same code at the same line;
3. agreement: a clean kernel that computes what its generator intended matches the numpy reference (and
   gives the same outputs when its affine iterations and program instances run in a shuffled order).

`check` returns the disagreements as readable strings (empty: the program passes).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import device
from device.faults import RUNTIME_CODES
from nki_verify import Options, verify_source
from nki_verify.rules import RULES

from .programs import Program

IMPLEMENTED = frozenset(code for code, rule in RULES.items() if rule.implemented)
CHECKED = RUNTIME_CODES & IMPLEMENTED
UNDECIDED = re.compile(r"\((NKI\d{3}):")
MAX_ELEMENTS = 1 << 22  # replays with larger inputs are skipped (said in the outcome)
SHAPE_NAME = re.compile(r"^(?P<param>[A-Za-z_]\w*)\.shape\[(?P<axis>-?\d+)\]$")


@dataclass
class Outcome:
    problems: list = field(default_factory=list)
    diagnostics: list = field(default_factory=list)
    runs: int = 0
    replays: int = 0
    skipped_replays: int = 0
    compared: bool = False

    def report(self, program: Program) -> str:
        lines = [f"spec: {program.spec!r}", "", _numbered(program.source), "verifier:"]
        lines += [f"  {d.line}: {d.code} {d.severity}: {d.message}  cex={d.counterexample}" for d in self.diagnostics]
        return "\n".join(lines + ["problems:"] + [f"  {p}" for p in self.problems])


def _race_lines(diags: list) -> set:
    """Lines an SPMD race (NKI402) involves: a read there may see the other instance's write or nothing,
    so the device's sequential order can fault there with NKI404 (an uninitialised read)."""
    lines = set()
    for d in diags:
        if d.code == "NKI402":
            lines.add(d.line)
            lines.update(n.location.line for n in d.notes if n.location is not None)
    return lines


def _numbered(text: str) -> str:
    return "\n".join(f"{i + 1:3d}  {line}" for i, line in enumerate(text.splitlines()))


class Checker:
    """Runs the properties with one reusable device and a scratch directory for the sources."""

    def __init__(self) -> None:
        self.device = device.Device("trn2")
        self.dir = tempfile.mkdtemp(prefix="nki_crosscheck_")
        self.count = 0

    def check(self, program: Program) -> Outcome:
        self.count += 1
        path = os.path.join(self.dir, f"prog{self.count}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(program.source)
        out = Outcome()
        opts = Options(target="trn2", shapes=program.verifier_shapes(), kernels=(program.kernel,))
        diags = [d for d in verify_source(program.source, path, opts) if d.severity in ("error", "warning")]
        out.diagnostics = diags
        for d in diags:
            if "internal error" in d.message:
                out.problems.append(f"verifier internal error at line {d.line}: {d.message}")
        reported = {d.code for d in diags} | {c for d in diags if d.code == "NKI901"
                                              for c in UNDECIDED.findall(d.message)}
        self._soundness(program, path, reported, _race_lines(diags), out)
        self._replays(program, path, diags, out)
        return out

    # ------------------------------------------------------------------ properties
    def _soundness(self, program: Program, path: str, reported: set, race_lines: set, out: Outcome) -> None:
        for n, values in enumerate([program.shape_vars] + list(program.samples)):
            res = self._run(program, path, values, seed=n)
            out.runs += 1
            for f in res.sound_faults:
                if f.code == "NKI404" and f.line in race_lines:
                    continue  # the other instance's write, unordered by a barrier: the reported race explains it
                if f.code in CHECKED and f.code not in reported:
                    out.problems.append(f"unsound: the verifier reports no {f.code}, but the device faults with it "
                                        f"for {_shapes(program, values)}: {_fault(f)}")
            if n == 0:
                self._agreement(program, path, values, res, out)

    def _agreement(self, program: Program, path: str, values: dict, res: device.Result, out: Outcome) -> None:
        if not program.intended or out.diagnostics or res.faults or program.reference is None:
            return
        shuffled = self.device.execute(path, kernel=program.entry, grid=program.grid, mode="collect", shuffle=7,
                                       **program.inputs(values, seed=0))
        # another order may round a sum differently: the program's tolerance, not bit equality
        if shuffled.faults or not np.allclose(np.asarray(shuffled.outputs, np.float64),
                                              np.asarray(res.outputs, np.float64), rtol=max(program.rtol, 1e-5),
                                              atol=max(program.atol, 1e-5)):
            out.problems.append("shuffled execution (affine iterations and program instances in another order) "
                                "changes the outputs of a race-free kernel")
        expected = program.reference(program.inputs(values, seed=0))
        got = res.outputs
        out.compared = True
        if got is None or np.shape(got) != np.shape(expected):
            out.problems.append(f"disagreement: output shape {np.shape(got)} != reference {np.shape(expected)}")
            return
        if not np.allclose(np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                           rtol=program.rtol, atol=program.atol, equal_nan=False):
            bad = np.argwhere(~np.isclose(got, expected, rtol=program.rtol, atol=program.atol))
            where = tuple(int(i) for i in bad[0])
            out.problems.append(f"disagreement: output{list(where)} = {got[where]!r}, reference {expected[where]!r}")

    def _replays(self, program: Program, path: str, diags: list, out: Outcome) -> None:
        for d in diags:
            if d.counterexample is None or d.code not in RUNTIME_CODES:
                continue
            self._replay(program, path, d, out)

    def _replay(self, program: Program, path: str, d: Any, out: Outcome) -> None:
        """The counterexample's values exactly; dimensions it does not name take the generator's admissible
        values (the default first, then the other samples: a counterexample naming iterations 0 and 1 needs
        an input with two tiles)."""
        candidates = [replay_values(program, d.counterexample, base)
                      for base in [program.shape_vars] + list(program.samples)]
        candidates = [v for v in candidates if v is not None and _elements(program, v) <= MAX_ELEMENTS]
        if not candidates:
            out.skipped_replays += 1
            return
        tried = []
        for values in candidates:
            try:
                res = self._run(program, path, values, seed=1)
            except device.KernelPrecondition as exc:
                tried.append(f"{_shapes(program, values)}: the kernel rejects them ({exc})")
                continue
            out.replays += 1
            if res.at(d.code, d.line):
                return
            tried.append(f"{_shapes(program, values)}: " + (", ".join(_fault(f) for f in res.faults) or "no fault"))
        out.problems.append(f"replay: {d.code} {d.severity} at line {d.line} with {d.counterexample} does not fault "
                            f"on the device; tried " + "; ".join(tried))

    def _run(self, program: Program, path: str, values: dict, seed: int) -> device.Result:
        inputs = program.inputs(values, seed)
        return self.device.execute(path, kernel=program.entry, grid=program.grid, mode="collect", **inputs)


def replay_values(program: Program, cex: tuple, base: dict) -> dict | None:
    """Shape variables and int arguments set as the counterexample says (the rest from `base`)."""
    values = dict(program.shape_vars)
    values.update(base)
    by_param = {p.name: p for p in program.params}
    for name, value in cex:
        m = SHAPE_NAME.match(name)
        if m:
            p = by_param.get(m.group("param"))
            if p is None or not p.dims:
                return None
            values[p.dims[int(m.group("axis"))]] = int(value)
        elif name in by_param and not by_param[name].dims:
            values[name] = int(value)
    if any(isinstance(v, int) and v < 1 for k, v in values.items() if k not in by_param):
        return None
    return values


def _elements(program: Program, values: dict) -> int:
    return sum(int(np.prod([values[d] for d in p.dims])) for p in program.params if p.dims)


def _shapes(program: Program, values: dict) -> str:
    return ", ".join(f"{p.name}={tuple(values[d] for d in p.dims)}" if p.dims else f"{p.name}={values[p.name]}"
                     for p in program.params)


def _fault(f: device.DeviceFault) -> str:
    return f"{f.code} at line {f.line} ({f.message})"
