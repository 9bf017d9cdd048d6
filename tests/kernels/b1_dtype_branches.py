"""A tile converted only when its dtype differs from the destination's (`if t.dtype != buf.dtype: t = nl.copy(...)`):
with the input's dtype unknown, the tile assigned afterwards is one of two; each assignment is followed under
its condition (was: NKI902, assigning a merged value into a tensor)."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def stage_as_float32(x):
    assert x.shape == (128, 512)
    buf = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    t = nl.load(x)
    if t.dtype != buf.dtype:
        t = nl.copy(t, dtype=buf.dtype)
    buf[:, 0:512] = t
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=buf)
    return out


@nki.jit
def stage_as_float32_into_a_narrower_view(x):
    assert x.shape == (128, 512)
    buf = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    t = nl.load(x)
    if t.dtype != buf.dtype:
        t = nl.copy(t, dtype=buf.dtype)
    # wrong on both sides, each reported under its own condition on the unknown dtype: a warning
    buf[:, 0:256] = t  # expect: NKI501 warning
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=buf)  # expect: NKI404 error
    return out
