"""Beta-2 LNC2 kernels: each core writes its own half (clean); both write the same rows (NKI402);
exchange through shared HBM ordered by core_barrier (clean) or not (NKI402); a barrier one core skips."""
import numpy as np
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def halves(a):
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)
    return out


@nki.jit
def same_rows(a):
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[0:128, :], src=t)  # expect: NKI402 error
    return out


@nki.jit
def exchange_with_barrier(a):
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)
    nisa.core_barrier(out, (0, 1))
    other = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=other, src=out[(1 - pid) * 128:(2 - pid) * 128, :])
    return out


@nki.jit
def exchange_without_barrier(a):
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)  # expect: NKI402 error
    other = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=other, src=out[(1 - pid) * 128:(2 - pid) * 128, :])
    return out


@nki.jit
def barrier_on_one_core(a):
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)
    if pid == 0:
        nisa.core_barrier(out, (0, 1))  # expect: NKI402 error
    return out


@nki.jit
def both_cores_zero_the_output(a):
    # Both cores write zeros over the whole output, then a barrier: identical values, no race.
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    zeros = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=zeros, value=0.0)
    for r in nl.affine_range(2):
        nisa.dma_copy(dst=out[r * 128:(r + 1) * 128, :], src=zeros)
    nisa.core_barrier(out, (0, 1))
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)
    return out


@nki.jit
def both_cores_fill_with_their_id(a):
    # The fill value depends on the core: the two writes disagree.
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    fill = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.memset(dst=fill, value=pid)
    nisa.dma_copy(dst=out[0:128, :], src=fill)  # expect: NKI402 error
    return out



@nki.jit
def one_core_worth_of_rows(a):
    # With one tile of rows both cores take shard 0 and compute the same tile: duplicate work writing
    # the same values, not a race.  With two tiles each core takes its own.
    R, F = a.shape
    assert R in (128, 256) and F == 512
    out = nl.ndarray((R, F), dtype=a.dtype, buffer=nl.shared_hbm)
    n_shards = R // 128
    shard = nl.program_id(0) if n_shards > 1 else 0
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[shard * 128:(shard + 1) * 128, :])
    nisa.activation(dst=t, op=nl.exp, data=t)
    nisa.dma_copy(dst=out[shard * 128:(shard + 1) * 128, :], src=t)
    return out


@nki.jit
def one_core_worth_of_rows_but_shifted(a):
    # The same, except the source row depends on the core even when both write shard 0.
    R, F = a.shape
    assert R in (128, 256) and F == 512
    out = nl.ndarray((256, F), dtype=a.dtype, buffer=nl.shared_hbm)
    n_shards = R // 128
    shard = nl.program_id(0) if n_shards > 1 else 0
    t = nl.ndarray((1, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[nl.program_id(0), :])
    nisa.dma_copy(dst=out[shard, :], src=t)  # expect: NKI402 error
    return out

@nki.jit
def halves_then_flush(a):
    # `dma_copy(out, out)` by both cores after a barrier (a flush): each element gets the value it holds
    assert a.shape == (256, 512)
    out = nl.ndarray((256, 512), dtype=a.dtype, buffer=nl.shared_hbm)
    pid = nl.program_id(0)
    t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=a[pid * 128:(pid + 1) * 128, :])
    nisa.dma_copy(dst=out[pid * 128:(pid + 1) * 128, :], src=t)
    nisa.core_barrier(out, (0, 1))
    nisa.dma_copy(out, out)
    return out


if __name__ == "__main__":
    x = np.zeros((256, 512), dtype=np.float32)
    halves[2](x)
    halves_then_flush[2](x)
    same_rows[2](x)
    exchange_with_barrier[2](x)
    exchange_without_barrier[2](x)
    barrier_on_one_core[2](x)
    both_cores_zero_the_output[2](x)
    both_cores_fill_with_their_id[2](x)
    one_core_worth_of_rows[2](np.zeros((128, 512), dtype=np.float32))
    one_core_worth_of_rows_but_shifted[2](np.zeros((128, 512), dtype=np.float32))
