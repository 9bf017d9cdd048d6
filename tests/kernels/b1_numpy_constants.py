"""Constants a kernel builds with numpy on the host and hands to nl.shared_constant: per-partition offsets
repeated over quadrants (np.repeat), a block-diagonal matrix (np.kron), blocks stacked (np.concatenate,
np.stack).  Their shapes follow from numpy's rules; before, every check on the loaded constant was NKI901
("the shared_constant, whose array is not known")."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import numpy as np


@nki.jit
def add_quadrant_offsets(x):
    rows, cols = x.shape
    assert rows == 128 and cols <= 512
    # 4 quadrants of 32 partitions, each offset by its quadrant number times the row length
    offsets = np.repeat(np.arange(4) * cols, 32).reshape(128, 1)
    off = nl.load(nl.shared_constant(offsets, dtype=nl.float32))
    out = nl.ndarray((128, cols), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.add(nl.load(x), off))
    return out


@nki.jit
def rotate_blocks(x):
    assert x.shape == (128, 256)
    # a 128 x 128 block-diagonal matrix of four 32 x 32 identities, and a (2, 128, 1) stack of scales
    rot = np.kron(np.eye(4), np.eye(32)).astype(np.float32)
    scales = np.stack([np.ones((128, 1)), np.full((128, 1), 2.0)]).astype(np.float32)
    r = nl.load(nl.shared_constant(rot))
    s = nl.load(nl.shared_constant(scales)[1])
    y = nl.matmul(r, nl.load(x), transpose_x=True)
    out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.multiply(y, s))
    return out


@nki.jit
def stacked_offsets_one_block_too_many(x):
    assert x.shape == (128, 64)
    # five blocks of 32 partitions: 160
    offsets = np.concatenate([np.full((32, 1), i, dtype=np.float32) for i in range(5)], axis=0)
    off = nl.load(nl.shared_constant(offsets))  # expect: NKI201 error
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=nl.add(nl.load(x), off[0:128, :]))
    return out
