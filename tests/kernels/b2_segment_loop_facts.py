"""A loop over a few constant iterations (`for s in range(len(segs))`, three segments of the rows: two of k
rows and the rest), each iteration allocating a tile of its segment's size.  Every launch runs each
iteration, so each segment's allocation must succeed: the rest has at least one tile (n - 2*k >= 128).  That
fact was dropped (a condition over a loop index is not an input assumption), so a load of the rest's first
tile after the loop was a warning for n = 2*k, and the loop's own checks had counterexamples with a negative
segment."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def sum_segment_heads(x, k):
    n, w = x.shape
    assert w <= 512 and k >= 128 and k % 128 == 0 and n % 128 == 0
    segs = [(0, k // 128), (k // 128, k // 128), (2 * k // 128, (n - 2 * k) // 128)]
    out = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for s in range(len(segs)):
        t0, count = segs[s]
        heads = nl.ndarray((128, count, w), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=heads[:, 0, :], src=x[t0 * 128:t0 * 128 + 128, 0:w])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=heads[:, 0, :], op=nl.add)
    rest = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=rest, src=x[2 * k:2 * k + 128, 0:w])
    nisa.tensor_tensor(dst=acc, data1=acc, data2=rest, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out


@nki.jit
def sum_segment_heads_two_tiles_of_the_rest(x, k):
    n, w = x.shape
    assert w <= 512 and k >= 128 and k % 128 == 0 and n % 128 == 0
    segs = [(0, k // 128), (k // 128, k // 128), (2 * k // 128, (n - 2 * k) // 128)]
    out = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    for s in range(len(segs)):
        t0, count = segs[s]
        heads = nl.ndarray((128, count, w), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=heads[:, 0, :], src=x[t0 * 128:t0 * 128 + 128, 0:w])
        nisa.tensor_tensor(dst=acc, data1=acc, data2=heads[:, 0, :], op=nl.add)
    rest = nl.ndarray((128, w), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=rest, src=x[2 * k + 128:2 * k + 256, 0:w])  # expect: NKI101 warning
    nisa.tensor_tensor(dst=acc, data1=acc, data2=rest, op=nl.add)
    nisa.dma_copy(dst=out, src=acc)
    return out

