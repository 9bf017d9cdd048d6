"""Inline suppressions: one that hides a real finding (its line stays clean) and one that hides nothing,
which is reported as unused (NKI903, with a fix that removes the comment)."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def known_tail_overrun(a):
    P, F = a.shape
    assert F <= 512
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range((P + 127) // 128):
        t = nl.ndarray((128, F), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a[i * 128:(i + 1) * 128, :])  # nki-verify: ignore[NKI101]
        nisa.dma_copy(dst=out[i * 128:(i + 1) * 128, :], src=t)  # nki-verify: ignore[NKI101]
    return out


@nki.jit
def clean_copy(a):
    assert a.shape == (128, 512)
    out = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a)  # nki-verify: ignore[NKI101]  # expect: NKI903 warning
    nisa.dma_copy(dst=out, src=t)
    return out
