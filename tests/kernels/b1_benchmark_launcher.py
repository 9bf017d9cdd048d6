"""A benchmark script: each host function builds a kernel over the sizes it is given (closure values) and runs
it once, and `main()` calls them with sizes read from the command line.  Those sizes are values the analysis does
not follow (argparse), so that launch says nothing; each host function is also run with a symbol for each of its
sizes, and the kernels are analysed there, for every size.  Before, the launch from `main()` was analysed as well,
with sizes not known: size-0 findings and undecided checks on every access.  A module-level kernel that a test
launches at one size and `main()` at sizes from the command line keeps both launches: the second stands for any
size, which the first does not cover."""
import argparse

import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


def bench_rows(rows: int, cols: int, block=64):
    assert cols <= 512
    n_blocks = (rows + block - 1) // block
    padded = n_blocks * block
    i_p = nl.arange(block)[:, None]
    i_f = nl.arange(cols)[None, :]

    @nki.benchmark(warmup=2, iters=5)
    def rows_kernel(x):
        out = nl.ndarray((padded, cols), dtype=nl.float32, buffer=nl.shared_hbm)
        for b in nl.affine_range(n_blocks):
            t = nl.load(x[b * block + i_p, i_f])
            nl.store(out[b * block + i_p, i_f], value=t)
        return out

    x = np.random.randn(padded, cols).astype(np.float32)
    rows_kernel(x)


def bench_rows_in_blocks_of(rows: int, cols: int, block: int):
    assert cols <= 512
    n_blocks = (rows + block - 1) // block
    padded = n_blocks * block
    i_p = nl.arange(block)[:, None]
    i_f = nl.arange(cols)[None, :]

    @nki.benchmark(warmup=2, iters=5)
    def blocks_kernel(x):
        out = nl.ndarray((padded, cols), dtype=nl.float32, buffer=nl.shared_hbm)
        for b in nl.affine_range(n_blocks):
            t = nl.load(x[b * block + i_p, i_f])  # expect: NKI201 warning
            nl.store(out[b * block + i_p, i_f], value=t)
        return out

    x = np.random.randn(padded, cols).astype(np.float32)
    blocks_kernel(x)


@nki.jit
def copy_block(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x[0:128, 0:64])  # expect: NKI101 warning, NKI101 warning
    nl.store(out[0:128, 0:64], value=t)  # expect: NKI101 warning, NKI101 warning
    return out


def test_copy_block():
    copy_block(np.zeros((128, 64), dtype=np.float32))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--cols", type=int, default=512)
    parser.add_argument("--block", type=int, default=128)
    args = parser.parse_args()
    bench_rows(args.rows, args.cols)
    bench_rows_in_blocks_of(args.rows, args.cols, args.block)
    # (any sizes: past the 128 x 64 block the kernel copies when smaller)
    copy_block(np.zeros((args.rows, args.cols), dtype=np.float32))


if __name__ == "__main__":
    main()
