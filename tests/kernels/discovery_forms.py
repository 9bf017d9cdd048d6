"""Every way of declaring or launching a kernel is discovered, under any import alias."""
import numpy as np
import jax
import jax.numpy as jnp
import torch
import torch_neuronx
from jax_neuronx import nki_call
import neuronxcc.nki as nk
import neuronxcc.nki.language as lang
from neuronxcc.nki import baremetal


def wrapped_later(a):
    out = lang.ndarray(a.shape, dtype=a.dtype, buffer=lang.shared_hbm)
    i = lang.arange(128)[:, None]
    j = lang.arange(1024)[None, :]
    lang.store(out[i, j], value=lang.load(a[i, j]))  # expect: NKI101 error, NKI101 error
    return out


wrapped_later = torch_neuronx.nki_jit(wrapped_later)


@baremetal
def decorated_baremetal(a):
    out = lang.ndarray((128, 512), dtype=a.dtype, buffer=lang.shared_hbm)
    t = lang.load(a[0:128, 0:512])
    lang.store(out, value=t)
    return out


def called_through_nki_call(a):
    out = lang.ndarray((128, 512), dtype=a.dtype, buffer=lang.shared_hbm)
    t = lang.load(a[0:128, 0:600])  # expect: NKI101 error
    lang.store(out, value=t[0:128, 0:512])
    return out


def jitted_at_call_site(a):
    out = lang.ndarray((256, 512), dtype=a.dtype, buffer=lang.shared_hbm)
    t = lang.load(a[0:256, 0:512])  # expect: NKI101 error, NKI201 error
    lang.store(out, value=t)
    return out


def host():
    x = torch.rand(128, 512)
    wrapped_later(torch.zeros(128, 512))
    decorated_baremetal(np.zeros((128, 512), dtype=np.float32))
    key = jax.random.PRNGKey(0)
    y = jax.random.normal(key, (128, 512), dtype=jnp.float32)
    nki_call(called_through_nki_call, y, grid=(1,),
             out_shape=jax.ShapeDtypeStruct((128, 512), dtype=jnp.float32))
    k = nk.jit(jitted_at_call_site)
    k(x)


if __name__ == "__main__":
    host()
