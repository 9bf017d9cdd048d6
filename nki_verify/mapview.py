"""The on-chip memory map of a kernel (`nki-verify map`): SBUF and PSUM occupancy over program order.

For each buffer the picture has two views:

* bytes per partition (y, PSUM banks marked) over program order (x): one rectangle per tensor, from its
  allocation to its last use, at its byte offset;
* partitions (y) x bytes (x) at the program point of peak use: which partitions each live tensor covers.

Liveness is the verifier's own (analysis/memory.py, as NKI204 and NKI302 count it): a tensor is live from
its allocation to its last use; a loop body is drawn once (one iteration's buffer) unless the tensor is
used after its loop, when every iteration's buffer is live at once.  Tensors with `address=` are drawn at
their address, so overlapping placements show (hatched red); the others are laid out by a simple first-fit
allocator over live ranges, which the legend says.  Sizes that stay symbolic get a value consistent with
the kernel's assertions (shapes 512, scalars 4, unknown dtypes 4 bytes, when the assertions allow), named
in the legend.  The SVG is written by hand; PNG needs the optional `cairosvg` (`pip install nki-verify[png]`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from compiler import expr as E
from compiler import ir
from compiler.spec.targets import get_target

from .analysis import memory
from .analysis.engine import KernelAnalysis
from .analysis.solver import Violated

PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#86bcb6",
           "#8cd17d", "#a0cbe8", "#d4a6c8")
PREFERRED = {"shape": 512, "scalar": 4, "grid": 2, "unknown": 4}
MAX_INSTANCES = 16  # instances of one placed tensor drawn separately


@dataclass
class Region:
    index: int  # legend number
    tensor: str
    buffer: str
    part0: int
    parts: int
    offset: int
    nbytes: int  # bytes per partition, all instances together for an allocated tensor
    start: int  # program order: live from instruction `start` ...
    end: int  # ... to before instruction `end`
    manual: bool
    instances: int
    shape: str
    line: int
    instance: str = ""  # "i = 2" for one instance of a placed tensor

    def overlaps(self, other: Region) -> bool:
        return (self.start < other.end and other.start < self.end and self.offset < other.offset + other.nbytes
                and other.offset < self.offset + self.nbytes and self.part0 < other.part0 + other.parts
                and other.part0 < self.part0 + self.parts)


@dataclass
class BufferMap:
    buffer: str
    partitions: int
    capacity: int  # bytes per partition
    bank: int | None  # PSUM bank size
    regions: list = field(default_factory=list)

    def live_at(self, point: int) -> list:
        return [r for r in self.regions if r.start <= point < r.end]

    def high_water(self, point: int) -> int:
        return max((r.offset + r.nbytes for r in self.live_at(point)), default=0)

    def peak(self, steps: int) -> tuple:
        """(program point, bytes per partition) where the highest byte in use is highest."""
        return max(((p, self.high_water(p)) for p in range(max(steps, 1))), key=lambda t: (t[1], -t[0]))

    def overlaps(self) -> list:
        out = []
        for i, a in enumerate(self.regions):
            for b in self.regions[i + 1:]:
                if a.overlaps(b):
                    out.append((a, b))
        return out


@dataclass
class KernelMap:
    kernel: str
    context: str
    target: str
    steps: int  # instructions in program order
    lines: list  # source line of each instruction
    loops: list  # (label, first, end, depth)
    buffers: list  # BufferMap
    notes: list  # what was assumed, for the legend
    findings: list  # memory diagnostics of the kernel, as text


# ----------------------------------------------------------------------------- model


class _Values:
    """Concrete values for the symbolic quantities of a kernel, and what was assumed to get them."""

    def __init__(self, ka: KernelAnalysis, exprs: list) -> None:
        self.ka = ka
        loop_vars = {lp.var for lp in ka.k.loops}
        syms = sorted({s for e in exprs for s in E.free_syms(e) if isinstance(s, E.Sym) and s not in loop_vars},
                      key=lambda s: ka.names(s))
        self.env, self.assumed = self._resolve(syms)
        self.loop_ranges: dict = {}
        self._loop_ranges()

    def _resolve(self, syms: list) -> tuple:
        env, rest = {}, []
        for s in syms:
            iv = self.ka.ranges.get(s)
            if iv is not None and iv.lo is not None and iv.lo == iv.hi:
                env[s] = iv.lo
            else:
                rest.append(s)
        prefs: list = []
        for s in rest:  # keep each preferred value the kernel's assertions allow
            trial = prefs + [E.eq(s, self._preferred(s))]
            if isinstance(self.ka.prover.find_violation(E.FALSE, trial), Violated):
                prefs = trial
        r = self.ka.prover.find_violation(E.FALSE, prefs)
        model = r.model if isinstance(r, Violated) else {}
        for s in rest:
            env[s] = model.get(s, self._preferred(s))
        return env, [(self.ka.names(s), env[s]) for s in rest]

    def _preferred(self, s: E.Sym) -> int:
        info = self.ka.info.get(s)
        if info is not None and info.label.startswith("itemsize("):
            return 4
        return PREFERRED.get(info.role if info is not None else "unknown", 4)

    def _loop_ranges(self) -> None:
        for lp in self.ka.k.loops:  # parents first: an inner loop's bounds may use an outer index
            lo = self.bound(lp.start, low=True)
            hi = self.bound(lp.stop)
            self.loop_ranges[lp.var] = E.Interval(lo, None if hi is None else max(lo if lo is not None else 0, hi - 1))

    def bound(self, e: E.Expr, low: bool = False, ranges: dict | None = None) -> int | None:
        """The largest (or smallest) value of `e` over the loop ranges, inputs fixed."""
        e = E.substitute(e, self.env)
        iv = E.interval(e, self.loop_ranges if ranges is None else ranges)
        return iv.lo if low else iv.hi

    def at(self, e: E.Expr, loop_values: dict) -> int | None:
        try:
            return int(E.evaluate(E.substitute(e, {**self.env, **loop_values}), {}))
        except (KeyError, TypeError, ZeroDivisionError):
            return self.bound(e, low=True)


def build(kernel: ir.Kernel, findings: list | None = None, timeout_ms: int = 1000) -> KernelMap:
    """The occupancy map of one kernel (`findings`: its diagnostics, of which the memory ones are listed)."""
    ka = KernelAnalysis(kernel, timeout_ms)
    sizes = memory.Sizes(ka)
    target = get_target(kernel.target)
    tensors = _on_chip(kernel)
    measures = {t.id: (sizes.bytes_per_partition(t)[0], t.shape[t.par_dim or 0] if t.shape else E.ONE,
                       memory.multiplicity(ka, t)) for t in tensors}
    exprs = [x for m in measures.values() for x in m] + [a for t in tensors if t.address for a in t.address[:2]]
    exprs += [x for lp in kernel.loops for x in (lp.start, lp.stop)]
    values = _Values(ka, exprs)
    live = memory.live_ranges(kernel)
    buffers = [BufferMap(ir.SBUF, target.pmax, target.sbuf_bytes_per_partition, None),
               BufferMap(ir.PSUM, target.pmax, target.psum_bytes_per_partition, target.psum_bank_bytes)]
    for n, t in enumerate(tensors, 1):
        buf = buffers[0] if t.buffer == ir.SBUF else buffers[1]
        buf.regions.extend(_regions(n, t, measures[t.id], live[t.id], values, kernel, buf))
    for buf in buffers:
        _first_fit(buf)
    return KernelMap(kernel.name, kernel.context, target.name, len(kernel.instrs),
                     [ins.span.line for ins in kernel.instrs], _loops(kernel), buffers, _notes(values, buffers),
                     [f"{d.code} (line {d.line}): {d.message}" for d in findings or ()
                      if d.code in ("NKI203", "NKI204", "NKI301", "NKI302") and d.kernel == kernel.name])


def _on_chip(k: ir.Kernel) -> list:
    """The tensors that take on-chip memory: allocations (not result tiles assigned straight into a view) and
    manual placements that some instruction uses, as NKI204 and NKI302 see them."""
    aliases = memory.assigned_results(k)
    touched = memory.touched(k)
    return [t for t in k.tensors if t.buffer in ir.ON_CHIP and t.id in touched and
            ((t.kind in ("ndarray", "result") and t.id not in aliases) or (t.address is not None and
                                                                          len(t.address) >= 2))]


def _regions(n: int, t: ir.Tensor, measure: tuple, live: tuple, values: _Values, k: ir.Kernel,
             buf: BufferMap) -> list:
    nbytes_e, parts_e, mult_e = measure
    nbytes = max(values.bound(nbytes_e) or 0, 0)
    parts = max(values.bound(parts_e) or 1, 1)
    mult = max(values.bound(mult_e) or 0, 0) if mult_e != E.ONE else 1
    start, end = live[0], live[1] + 1
    shape = " x ".join(str(values.bound(d) if values.bound(d) is not None else "?") for d in t.shape)
    dtype = t.dtype or ("float32" if t.buffer == ir.PSUM else "unknown dtype")
    shape += f" {dtype[1:] if dtype.startswith('?') else dtype}"
    if t.address is None or len(t.address) < 2:
        if buf.bank:  # PSUM is allocated in whole banks, as NKI204 counts it
            nbytes = math.ceil(nbytes / buf.bank) * buf.bank
        return [Region(n, t.name, t.buffer, 0, parts, -1, nbytes * mult, start, end, False, mult, shape, t.span.line)]
    return [Region(n, t.name, t.buffer, part, parts, off, nbytes, start, end, True, 1, shape, t.span.line, label)
            for part, off, label in _placements(t, values, k, mult)]


def _placements(t: ir.Tensor, values: _Values, k: ir.Kernel, mult: int) -> list:
    """(partition, byte offset, instance label) of each instance of a placed tensor drawn: every iteration's when
    they are live at once (up to MAX_INSTANCES), else the first iteration's."""
    loops = [lp for lp in k.loops if lp.id in t.loops]
    first = {lp.var: values.bound(lp.start, low=True) or 0 for lp in loops}
    combos = [first]
    if mult > 1 and loops:
        combos = []
        for i in range(min(mult, MAX_INSTANCES)):
            combo, rest = dict(first), i
            for lp in reversed(loops):
                trip = max(1, (values.bound(lp.stop) or 1) - first[lp.var])
                combo[lp.var] = first[lp.var] + (rest % trip) * (values.bound(lp.step) or 1)
                rest //= trip
            combos.append(combo)
    out = []
    for combo in combos:
        label = ", ".join(f"{values.ka.names(v)} = {x}" for v, x in combo.items()) if len(combos) > 1 else ""
        out.append((values.at(t.address[0], combo) or 0, values.at(t.address[1], combo) or 0, label))
    return out


def _first_fit(buf: BufferMap) -> None:
    """Place every region without an address at the lowest offset free over its live range (PSUM: in banks)."""
    placed = [r for r in buf.regions if r.offset >= 0]
    align = buf.bank or 1
    for r in sorted((r for r in buf.regions if r.offset < 0), key=lambda r: (r.start, r.index)):
        busy = sorted((o.offset, o.offset + o.nbytes) for o in placed if o.start < r.end and r.start < o.end
                      and o.part0 < r.part0 + r.parts and r.part0 < o.part0 + o.parts)
        offset = 0
        for lo, hi in busy:
            if offset + r.nbytes <= lo:
                break
            offset = max(offset, math.ceil(hi / align) * align)
        r.offset = offset
        placed.append(r)


def _loops(k: ir.Kernel) -> list:
    out = []
    for lp in k.loops:
        idx = [n for n, ins in enumerate(k.instrs) if lp.id in ins.ctx.loops]
        if not idx:
            continue
        depth, parent = 0, lp.parent
        while parent is not None:
            depth += 1
            parent = k.loops[parent].parent if parent < len(k.loops) else None
        out.append((f"{lp.kind} {lp.var.name} (line {lp.span.line})", min(idx), max(idx) + 1, depth))
    return out


def _notes(values: _Values, buffers: list) -> list:
    notes = []
    if any(not r.manual for b in buffers for r in b.regions):
        notes.append("Tensors without address= are laid out by a simple first-fit allocator over their live ranges "
                     "(PSUM in whole banks); the NKI compiler's allocator may place them elsewhere.")
    if any(r.manual for b in buffers for r in b.regions):
        notes.append("Tensors with address= are drawn at their address: overlapping placements are hatched red.")
    notes.append("Liveness as NKI204 counts it: from allocation to last use in program order, and to the end of a "
                 "loop body that uses a tensor allocated before it; a loop body is drawn once (one iteration's "
                 "buffer); a tensor used after its loop keeps every iteration's (xN).")
    for name, v in values.assumed:
        if name.startswith("itemsize("):
            dtype = name[len("itemsize("):-1]
            notes.append(f"{dtype} is not known: its item size is drawn as {v} bytes (the largest the analysis "
                         "allows; give the dtype with --shape KERNEL.PARAM=DxD:DTYPE).")
        else:
            notes.append(f"{name} is symbolic: drawn with {name} = {v}, a value the kernel's assertions allow "
                         "(fix it with --shape).")
    return notes


# ----------------------------------------------------------------------------- SVG

W, PANEL_H, CHART_W, SIDE_W = 1120, 300, 700, 250
X0, SIDE_X0 = 80, 840


def _fmt_bytes(n: float) -> str:
    if n >= 1024 and n % 1024 == 0:
        return f"{int(n // 1024)} KiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{int(n)} B"


def _nice_step(span: float, ticks: int = 6) -> float:
    raw = max(span / ticks, 1)
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 4, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def _byte_step(span: float) -> int:
    """Tick spacing for bytes: powers of two (KiB multiples read better than round decimals)."""
    step = 1
    while span / step > 8:
        step *= 2
    return step


class _Svg:
    def __init__(self) -> None:
        self.parts: list = []

    def add(self, s: str) -> None:
        self.parts.append(s)

    def rect(self, x: float, y: float, w: float, h: float, **attrs: object) -> None:
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}"{_attrs(attrs)}/>')

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: object) -> None:
        self.add(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"{_attrs(attrs)}/>')

    def text(self, x: float, y: float, s: str, **attrs: object) -> None:
        self.add(f'<text x="{x:.1f}" y="{y:.1f}"{_attrs(attrs)}>{escape(s)}</text>')


def _attrs(attrs: dict) -> str:
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{escape(str(v), {chr(34): "&quot;"})}"'
                   for k, v in attrs.items())


def render_svg(km: KernelMap) -> str:
    svg = _Svg()
    y = 20
    svg.text(20, y + 8, f"nki-verify map: {km.kernel} (target {km.target})", font_size=18, font_weight="bold")
    svg.text(20, y + 28, f"{km.context}; {km.steps} instructions in program order", font_size=12, fill="#555")
    y += 50
    for buf in km.buffers:
        y = _panel(svg, km, buf, y) + 20
    y = _legend(svg, km, y)
    body = "\n".join(svg.parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{y + 10}" viewBox="0 0 {W} {y + 10}" '
            f'font-family="DejaVu Sans, Arial, sans-serif">\n<defs><pattern id="hatch" width="6" height="6" '
            f'patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" '
            f'fill="#e15759" fill-opacity="0.25"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c00" '
            f'stroke-width="2.5"/></pattern></defs>\n<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n')


def _panel(svg: _Svg, km: KernelMap, buf: BufferMap, top: int) -> int:
    steps = max(km.steps, 1)
    point, peak = buf.peak(km.steps)
    ymax = _y_extent(buf, peak)
    chart_top, h = top + 46, PANEL_H - 100
    where = f"#{point} (line {km.lines[point]})" if point < len(km.lines) else f"#{point}"
    pct = f" ({100 * peak / buf.capacity:.1f}% of {_fmt_bytes(buf.capacity)})" if buf.capacity else ""
    if buf.bank:
        pct += f", {math.ceil(peak / buf.bank)} of {buf.capacity // buf.bank} banks"
    title = f"{buf.buffer.upper()}: {buf.partitions} partitions x {_fmt_bytes(buf.capacity)}"
    if buf.bank:
        title += f" = {buf.capacity // buf.bank} banks of {_fmt_bytes(buf.bank)}"
    svg.text(20, top + 14, title, font_size=15, font_weight="bold")
    svg.text(20, top + 28, f"peak {_fmt_bytes(peak)} per partition{pct} at instruction {where}", font_size=12,
             fill="#555")
    if not buf.regions:
        svg.text(X0, chart_top + 30, f"no {buf.buffer.upper()} tensors in this kernel", font_size=13, fill="#777")
        return chart_top + 40

    def X(p: float) -> float:
        return X0 + p / steps * CHART_W

    def Y(b: float) -> float:
        return chart_top + h - b / ymax * h

    svg.rect(X0, chart_top, CHART_W, h, fill="#fafafa", stroke="#999")
    _y_axis(svg, buf, ymax, Y, chart_top, h)
    _x_axis(svg, km, X, chart_top + h)
    boxes = [(r, X(r.start), Y(r.offset + r.nbytes), X(r.end) - X(r.start), Y(r.offset) - Y(r.offset + r.nbytes))
             for r in buf.regions]
    for r, x, y, w, hh in boxes:
        _region(svg, r, x, y, w, hh, Y)
    for a, b in buf.overlaps():
        x1, x2 = X(max(a.start, b.start)), X(min(a.end, b.end))
        lo, hi = max(a.offset, b.offset), min(a.offset + a.nbytes, b.offset + b.nbytes)
        svg.rect(x1, Y(hi), x2 - x1, Y(lo) - Y(hi), fill="url(#hatch)", stroke="#c00", stroke_width=1.5)
    for r, x, y, w, _ in boxes:
        if r.offset + r.nbytes > buf.capacity:  # the part that does not fit
            over = Y(max(r.offset, buf.capacity))
            svg.rect(x, y, w, over - y, fill="url(#hatch)", stroke="#c00", stroke_width=1.5)
    for r, x, y, w, hh in boxes:
        _label(svg, r, x, y, w, hh)
    svg.line(X(point + 0.5), chart_top, X(point + 0.5), chart_top + h, stroke="#333", stroke_dasharray="2,3")
    svg.text(X(point + 0.5) + 3, chart_top - 3, "peak", font_size=9, fill="#333")
    _loop_bands(svg, km, X, chart_top + h + 34)
    _partition_view(svg, buf, point, ymax, chart_top, h)
    depth = max((d for *_, d in km.loops), default=-1) + 1
    return chart_top + h + 40 + 14 * depth


def _y_extent(buf: BufferMap, peak: int) -> int:
    top = max((r.offset + r.nbytes for r in buf.regions), default=0)
    if buf.bank or top > buf.capacity * 0.5:
        top = max(top, buf.capacity)  # show the whole of PSUM, and SBUF's end when it is near
    return max(top, 1)


def _y_axis(svg: _Svg, buf: BufferMap, ymax: int, Y, top: float, h: float) -> None:
    if buf.bank:
        for b in range(0, ymax + 1, buf.bank):
            svg.line(X0, Y(b), X0 + CHART_W, Y(b), stroke="#bbb", stroke_dasharray="4,3")
            if b < ymax:
                svg.text(X0 + CHART_W + 4, Y(b + buf.bank / 2) + 4, f"bank {b // buf.bank}", font_size=10,
                         fill="#666")
    step = buf.bank or _byte_step(ymax)
    for b in range(0, ymax + 1, step):
        svg.line(X0 - 4, Y(b), X0, Y(b), stroke="#333")
        svg.text(X0 - 6, Y(b) + 4, _fmt_bytes(b), font_size=10, text_anchor="end")
    if buf.capacity <= ymax:
        svg.line(X0, Y(buf.capacity), X0 + CHART_W, Y(buf.capacity), stroke="#c00", stroke_width=1.5)
        svg.text(X0 + CHART_W - 4, Y(buf.capacity) - 3, f"capacity {_fmt_bytes(buf.capacity)}", font_size=10,
                 fill="#c00", text_anchor="end")
    svg.text(16, top + h / 2, "bytes per partition", font_size=11, transform=f"rotate(-90 16 {top + h / 2:.1f})",
             text_anchor="middle")


def _x_axis(svg: _Svg, km: KernelMap, X, base: float) -> None:
    step = max(1, int(_nice_step(max(km.steps, 1), 12)))
    for p in range(0, km.steps + 1, step):
        svg.line(X(p), base, X(p), base + 4, stroke="#333")
        svg.text(X(p), base + 14, f"#{p}", font_size=10, text_anchor="middle")
        if p < len(km.lines):
            svg.text(X(p), base + 25, f"l.{km.lines[p]}", font_size=9, text_anchor="middle", fill="#777")
    svg.text(X0 + CHART_W, base + 25, "program order (instruction #, source line)", font_size=10,
             text_anchor="end", fill="#333", dy="12")


def _loop_bands(svg: _Svg, km: KernelMap, X, top: float) -> None:
    for label, first, end, depth in km.loops:
        yy = top + 10 + 14 * depth
        svg.line(X(first), yy, X(end), yy, stroke="#777", stroke_width=2)
        svg.line(X(first), yy - 4, X(first), yy + 4, stroke="#777")
        svg.line(X(end), yy - 4, X(end), yy + 4, stroke="#777")
        svg.text(X(first) + 3, yy - 3, label, font_size=9, fill="#555")


def _colour(r: Region) -> str:
    return PALETTE[(r.index - 1) % len(PALETTE)]


def _region(svg: _Svg, r: Region, x: float, y: float, w: float, h: float, Y) -> None:
    stroke = {"stroke": "#222", "stroke_width": 1.5} if r.manual else {"stroke": "white", "stroke_width": 0.8}
    svg.rect(x, y, w, h, fill=_colour(r), fill_opacity=0.85, **stroke)
    if r.instances > 1:  # one buffer per iteration, stacked
        each = r.nbytes / r.instances
        for i in range(1, r.instances):
            yy = Y(r.offset + i * each)
            svg.line(x, yy, x + w, yy, stroke="white", stroke_width=0.8)


def _label(svg: _Svg, r: Region, x: float, y: float, w: float, h: float) -> None:
    name = f"{r.index} {r.tensor}" + (f" x{r.instances}" if r.instances > 1 else "") + \
        (f" [{r.instance}]" if r.instance else "")
    if w <= 12 or h < 10:
        return  # the legend has it
    if w < 6.5 * len(name) + 6 or h < 14:
        name = str(r.index)
    ty = y + min(h / 2 + 4, 13)
    svg.rect(x + 2, ty - 10, 6.3 * len(name) + 3, 13, fill="white", fill_opacity=0.8)
    svg.text(x + 3, ty, name, font_size=11, fill="black")


def _partition_view(svg: _Svg, buf: BufferMap, point: int, ymax: int, top: float, h: float) -> None:
    svg.text(SIDE_X0, top - 6, f"at #{point}: partitions x bytes", font_size=11, font_weight="bold")
    svg.rect(SIDE_X0, top, SIDE_W, h, fill="#fafafa", stroke="#999")

    def BX(b: float) -> float:
        return SIDE_X0 + b / ymax * SIDE_W

    def PY(p: float) -> float:
        return top + p / buf.partitions * h

    live = buf.live_at(point)
    for r in live:
        svg.rect(BX(r.offset), PY(r.part0), BX(r.offset + r.nbytes) - BX(r.offset), PY(r.part0 + r.parts) - PY(r.part0),
                 fill=_colour(r), fill_opacity=0.7, stroke="#222" if r.manual else "white", stroke_width=0.8)
    for a, b in buf.overlaps():
        if a in live and b in live:
            lo, hi = max(a.offset, b.offset), min(a.offset + a.nbytes, b.offset + b.nbytes)
            p0, p1 = max(a.part0, b.part0), min(a.part0 + a.parts, b.part0 + b.parts)
            svg.rect(BX(lo), PY(p0), BX(hi) - BX(lo), PY(p1) - PY(p0), fill="url(#hatch)", stroke="#c00")
    for r in live:
        if BX(r.offset + r.nbytes) - BX(r.offset) > 14:
            svg.rect(BX(r.offset) + 1, PY(r.part0) + 2, 6.3 * len(str(r.index)) + 3, 12, fill="white",
                     fill_opacity=0.8)
            svg.text(BX(r.offset) + 2, PY(r.part0) + 12, str(r.index), font_size=10)
    if buf.capacity < ymax:
        svg.line(BX(buf.capacity), top, BX(buf.capacity), top + h, stroke="#c00", stroke_width=1.5)
    for p in range(0, buf.partitions + 1, 32):
        svg.text(SIDE_X0 - 4, PY(p) + 4, str(p), font_size=9, text_anchor="end")
    svg.text(SIDE_X0, top + h + 14, "0", font_size=9)
    svg.text(SIDE_X0 + SIDE_W, top + h + 14, _fmt_bytes(ymax), font_size=9, text_anchor="end")
    svg.text(SIDE_X0 + SIDE_W / 2, top + h + 26, "bytes per partition; rows: partitions", font_size=9,
             text_anchor="middle", fill="#555")


def _legend(svg: _Svg, km: KernelMap, y: int) -> int:
    svg.text(20, y + 12, "Tensors", font_size=14, font_weight="bold")
    y += 22
    seen = set()
    for buf in km.buffers:
        for r in buf.regions:
            if r.index in seen:
                continue
            seen.add(r.index)
            instances = [x for x in buf.regions if x.index == r.index]
            svg.rect(20, y, 12, 12, fill=_colour(r), stroke="#222" if r.manual else "none")
            svg.text(40, y + 10, _legend_row(r, instances, km), font_size=11)
            y += 17
    for overlap in (o for buf in km.buffers for o in buf.overlaps()):
        a, b = overlap
        svg.rect(20, y, 12, 12, fill="url(#hatch)", stroke="#c00")
        what = f"{a.tensor} [{a.instance}] and [{b.instance}]" if a.index == b.index else f"{a.tensor} and {b.tensor}"
        svg.text(40, y + 10, f"overlap: {what} are live at once on the same partitions and bytes", font_size=11,
                 fill="#c00")
        y += 17
    y += 6
    for title, lines, colour in (("Findings", km.findings, "#c00"), ("Notes", km.notes, "#333")):
        if not lines:
            continue
        svg.text(20, y + 12, title, font_size=14, font_weight="bold")
        y += 20
        for line in lines:
            for chunk in _wrap(line, 160):
                svg.text(28, y + 10, chunk, font_size=11, fill=colour)
                y += 15
        y += 6
    return y


def _legend_row(r: Region, instances: list, km: KernelMap) -> str:
    first = km.lines[r.start] if r.start < len(km.lines) else "?"
    last = km.lines[r.end - 1] if 0 < r.end <= len(km.lines) else "?"
    parts = f"partitions {r.part0}..{r.part0 + r.parts - 1}"
    size = _fmt_bytes(r.nbytes) + (f" ({r.instances} instances)" if r.instances > 1 else "") + " per partition"
    if r.manual:
        where = "address=" + ", ".join(f"({x.part0}, {x.offset})" for x in instances[:4]) + \
            (f", ... ({len(instances)} instances)" if len(instances) > 4 else "")
    else:
        where = f"first-fit at byte {r.offset}"
    return (f"{r.index}  {r.tensor} (line {r.line}): {r.buffer.upper()} {r.shape}, {parts}, {size}, "
            f"live #{r.start}..#{r.end - 1} (lines {first}..{last}), {where}")


def _wrap(text: str, width: int) -> list:
    words, out, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            out.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    return out + ([cur] if cur else [])


def render_png(svg_text: str, path: str) -> None:
    """Rasterise the SVG (needs the optional cairosvg package and the cairo library)."""
    import cairosvg

    cairosvg.svg2png(bytestring=svg_text.encode("utf-8"), write_to=path, output_width=W * 2 // 1)
