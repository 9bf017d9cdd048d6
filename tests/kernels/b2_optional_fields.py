"""An optional configuration object whose optional tensor field the kernel dereferences on some paths (an MX
kernel's dequantisation scales in a `QuantizationConfig` left at None): the kernel is analysed with the
object given and that field given as a tensor, as well as with both left at None (the copy past the scale's
end is a warning: only launches that ask for the scale reach it).  It was 'attribute of None' (NKI902) and the
scaled path unchecked."""
from dataclasses import dataclass
from typing import Optional

import nki
import nki.isa as nisa
import nki.language as nl


@dataclass
class ScaleConfig(nl.NKIObject):
    scale: Optional[nl.ndarray] = None


def _load_scale(cfg):
    s = nl.ndarray((128, 1), dtype=cfg.scale.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=cfg.scale[0:128, 0:1])
    return s


@nki.jit
def scaled_copy(x, use_scale: bool, quant: Optional[ScaleConfig] = None):
    assert x.shape == (128, 512)
    cfg = quant or ScaleConfig()
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if use_scale:
        assert cfg.scale.shape == (128, 1)
        s = _load_scale(cfg)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=s)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out


@nki.jit
def scaled_copy_one_past(x, use_scale: bool, quant: Optional[ScaleConfig] = None):
    assert x.shape == (128, 512)
    cfg = quant or ScaleConfig()
    t = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    if use_scale:
        assert cfg.scale.shape == (128, 1)
        s = nl.ndarray((128, 1), dtype=cfg.scale.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=s, src=cfg.scale[0:128, 1:2])  # expect: NKI101 warning
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=s)
    out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=t)
    return out

