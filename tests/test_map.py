"""`nki-verify map`: the occupancy model agrees with NKI204/NKI302, and the picture is a well-formed SVG (or PNG)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from nki_verify import analyze_source, mapview
from nki_verify.options import Options

from .cli_run import run

HERE = os.path.dirname(os.path.abspath(__file__))
MEMORY = os.path.join(HERE, "kernels", "b2_memory.py")
BANKS = os.path.join(HERE, "map", "matmul_banks.py")
SVG = "{http://www.w3.org/2000/svg}"


def _map(path: str, kernel: str, **options: object) -> mapview.KernelMap:
    res = analyze_source(open(path, encoding="utf-8").read(), path, Options(kernels=(kernel,), **options))
    (k,) = res.ir
    return mapview.build(k, res.diagnostics)


def _regions(km: mapview.KernelMap, buffer: str) -> dict:
    (buf,) = [b for b in km.buffers if b.buffer == buffer]
    return {(r.tensor, r.instance): r for r in buf.regions}


def test_placed_tensors_sit_at_their_address_and_their_overlap_is_found() -> None:
    km = _map(MEMORY, "two_placed_tensors_overlap")
    sbuf = _regions(km, "sbuf")
    a, b = sbuf[("a", "")], sbuf[("b", "")]
    assert (a.part0, a.parts, a.offset, a.nbytes, a.manual) == (0, 128, 0, 1024, True)
    assert (b.offset, b.nbytes) == (512, 1024)
    (buf,) = [x for x in km.buffers if x.buffer == "sbuf"]
    assert buf.overlaps() == [(a, b)]
    assert any(f.startswith("NKI302") for f in km.findings)


def test_disjoint_partitions_do_not_overlap() -> None:
    km = _map(MEMORY, "placed_on_other_partitions")
    (buf,) = [x for x in km.buffers if x.buffer == "sbuf"]
    assert [(r.part0, r.parts) for r in buf.regions] == [(0, 64), (64, 64)] and buf.overlaps() == []


def test_every_live_iteration_of_a_placed_tensor_is_drawn() -> None:
    km = _map(MEMORY, "placed_tiles_forgot_itemsize")
    (buf,) = [x for x in km.buffers if x.buffer == "sbuf"]
    # n_tiles (<= 8) and k.shape[1] (<= 512) are symbolic: drawn with values the asserts allow, and said so
    assert [r.offset for r in buf.regions] == [0, 512, 1024, 1536] and {r.nbytes for r in buf.regions} == {1024}
    assert len(buf.overlaps()) == 3
    assert any("n_tiles is symbolic: drawn with n_tiles = 4" in n for n in km.notes)
    assert any("k.shape[1] is symbolic: drawn with k.shape[1] = 512" in n for n in km.notes)


def test_psum_banks_agree_with_nki204() -> None:
    km = _map(MEMORY, "too_many_psum_banks")
    regions = list(km.buffers[1].regions)
    # nine banks, one per iteration kept in the list (one region per unrolled iteration, or one with 9 instances)
    assert sum(r.nbytes for r in regions) == 9 * 2048
    assert sum(r.instances for r in regions) == 9
    assert km.buffers[1].peak(km.steps)[1] > km.buffers[1].capacity
    assert any(f.startswith("NKI204") and "9 PSUM banks" in f for f in km.findings)


def test_first_fit_reuses_memory_of_dead_tensors() -> None:
    km = _map(MEMORY, "sbuf_reused_in_sequence")
    sbuf = _regions(km, "sbuf")
    assert sbuf[("a", "")].offset == sbuf[("b", "")].offset == 0
    assert sbuf[("a", "")].end <= sbuf[("b", "")].start
    km = _map(BANKS, "matmul_two_banks")
    psum = _regions(km, "psum")
    assert (psum[("acc0", "")].offset, psum[("acc1", "")].offset) == (0, 2048)  # whole banks
    assert any("lhsT.dtype is not known: its item size is drawn as 4 bytes" in n for n in km.notes)


def test_fixed_shapes_leave_nothing_assumed() -> None:
    shapes = {"matmul_two_banks": {"lhsT": ((512, 128), "bfloat16"), "rhs": ((512, 1024), "bfloat16")}}
    km = _map(BANKS, "matmul_two_banks", shapes=shapes)
    assert not any("symbolic" in n or "not known" in n for n in km.notes)
    sbuf = _regions(km, "sbuf")
    assert (sbuf[("lt", "")].nbytes, sbuf[("rt", "")].nbytes, sbuf[("res", "")].nbytes) == (256, 2048, 4096)


def test_svg_is_well_formed_and_labelled(tmp_path) -> None:
    out = tmp_path / "map.svg"
    p = run("map", BANKS, "--kernel", "matmul_placed_banks", "-o", str(out))
    assert p.returncode == 0, p.stderr
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg"
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "PSUM: 128 partitions x 16 KiB = 8 banks of 2 KiB" in texts
    assert {"bank 0", "bank 7"} <= set(texts)
    assert any(t.startswith("overlap: acc0 and acc1") for t in texts)
    assert any(t.startswith("NKI301 (line 38)") for t in texts)
    assert any(r.get("fill") == "url(#hatch)" for r in root.iter(f"{SVG}rect"))


def test_png_output(tmp_path) -> None:
    out = tmp_path / "map.png"
    p = run("map", MEMORY, "--kernel", "too_many_psum_banks", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_map_needs_one_kernel() -> None:
    p = run("map", MEMORY)
    assert p.returncode == 2 and "choose one with --kernel" in p.stderr
    p = run("map", MEMORY, "--kernel", "no_such_kernel")
    assert p.returncode == 2 and "found no no_such_kernel" in p.stderr
    p = run("map", BANKS, "--kernel", "matmul_two_banks")
    assert p.returncode == 0 and p.stdout.startswith("<svg")
