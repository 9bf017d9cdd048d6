"""Lints that depend on the NKI version the kernel targets (Options.nki_version, default the newest)."""

from __future__ import annotations

import textwrap

from nki_verify import Options, verify_source

SUBKERNEL = textwrap.dedent('''
    import nki
    import nki.isa as nisa
    import nki.language as nl


    @nki.jit
    def copy_tile(src, dst):
        nisa.dma_copy(dst=dst, src=src)


    @nki.jit
    def kernel(x):
        assert x.shape == (128, 512)
        out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        copy_tile(x, t)
        nisa.dma_copy(dst=out, src=t)
        return out
''')

NESTED = textwrap.dedent('''
    import nki
    import nki.isa as nisa
    import nki.language as nl


    @nki.jit
    def kernel(x):
        assert x.shape == (128, 512)
        out = nl.ndarray((64, 256), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.dma_copy(dst=out, src=t[0:64, :][:, 0:256])
        return out
''')

LOAD = textwrap.dedent('''
    import nki
    import nki.language as nl


    @nki.jit
    def kernel(x):
        assert x.shape == (128, 512)
        out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        nl.store(out, value=t)
        return out
''')


KWONLY = textwrap.dedent('''
    import nki
    import nki.isa as nisa
    import nki.language as nl


    @nki.jit
    def kernel(x, *, scale=2.0):
        assert x.shape == (128, 512)
        out = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 512), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=scale)
        nisa.dma_copy(dst=out, src=t)
        return out
''')


def codes(text: str, version: str | None) -> list:
    return [d.code for d in verify_source(text, "k.py", Options(nki_version=version))]


def test_jit_subkernel_is_fine_today_but_not_in_0_2() -> None:
    assert "NKI603" not in codes(SUBKERNEL, None)
    assert "NKI603" not in codes(SUBKERNEL, "0.6")
    assert codes(SUBKERNEL, "0.2").count("NKI603") == 1


def test_nested_slicing_only_before_0_5() -> None:
    assert "NKI602" not in codes(NESTED, None)
    assert "NKI602" in codes(NESTED, "0.4")


def test_load_store_only_removed_in_0_2() -> None:
    assert "NKI602" not in codes(LOAD, None)
    assert "NKI602" not in codes(LOAD, "0.3.0")
    assert codes(LOAD, "0.2.0").count("NKI602") == 2


def test_cli_flag(tmp_path) -> None:
    import subprocess
    import sys

    p = tmp_path / "k.py"
    p.write_text(SUBKERNEL)
    run = [sys.executable, "-m", "nki_verify.cli", str(p), "--select", "NKI603", "--no-cache"]
    assert subprocess.run(run, capture_output=True, text=True).returncode == 0
    out = subprocess.run(run + ["--nki-version", "0.2"], capture_output=True, text=True)
    assert out.returncode == 1 and "NKI603" in out.stdout
    bad = subprocess.run(run + ["--nki-version", "latest"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--nki-version" in bad.stderr


def test_a_keyword_only_separator_is_refused_from_0_3() -> None:
    # the 0.3.0 migration notes remove the `*` separator that 0.2 kernels used
    assert codes(KWONLY, None).count("NKI601") == 1
    assert codes(KWONLY, "0.3").count("NKI601") == 1
    assert "NKI601" not in codes(KWONLY, "0.2")
