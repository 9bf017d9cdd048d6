"""Reference-device speed: a tiled 1024^3 matmul against np.matmul, a 4096x4096 tensor add against numpy's
add, and the overhead of one instruction, in one run.

    python benchmarks/bench_device.py [--repeat N] [--no-hazards] [--json]

Targets (issue 4): matmul within 4x of np.matmul, tensor add within 3x of numpy add (default checks on).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

# One BLAS thread for both sides: the device's many small matmuls and np.matmul's one large one are then
# compared on the same footing (and a machine shared with other jobs does not stall BLAS's spinning threads).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import device  # noqa: E402

KERNELS = os.path.join(ROOT, "benchmarks", "device_kernels.py")


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


DEVICE = device.Device("trn2")  # kernels imported once, on-chip memories reused (as numpy reuses its buffers)


def on_device(kernel: str, args: tuple, hazards: bool) -> tuple:
    res = DEVICE.execute(KERNELS, *args, kernel=kernel, mode="raise", hazards=hazards)
    return res.outputs, res.instructions


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-hazards", action="store_true", help="measure without shadow memory and access logs")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    hazards = not args.no_hazards
    rng = np.random.default_rng(0)
    out: dict = {"hazards": hazards}

    lhs_t = rng.random((1024, 1024), dtype=np.float32)
    rhs = rng.random((1024, 1024), dtype=np.float32)
    res, n = on_device("matmul_tiled", (lhs_t, rhs), hazards)
    np.testing.assert_allclose(res, lhs_t.T @ rhs, rtol=1e-4)
    t_dev = best(lambda: on_device("matmul_tiled", (lhs_t, rhs), hazards), args.repeat)
    t_np = best(lambda: np.matmul(lhs_t.T, rhs), args.repeat)
    out["matmul"] = {"device_ms": t_dev * 1e3, "numpy_ms": t_np * 1e3, "ratio": t_dev / t_np, "instructions": n,
                     "target_ratio": 4.0}

    a = rng.random((4096, 4096), dtype=np.float32)
    b = rng.random((4096, 4096), dtype=np.float32)
    res, n = on_device("tensor_add", (a, b), hazards)
    np.testing.assert_array_equal(res, a + b)
    t_dev = best(lambda: on_device("tensor_add", (a, b), hazards), args.repeat)
    t_np = best(lambda: np.add(a, b), args.repeat)
    out["tensor_add"] = {"device_ms": t_dev * 1e3, "numpy_ms": t_np * 1e3, "ratio": t_dev / t_np, "instructions": n,
                         "target_ratio": 3.0}

    x = rng.random((128, 8), dtype=np.float32)
    small = [best(lambda k=k: on_device("many_small", (x, k), hazards), args.repeat) for k in (100, 1100)]
    out["per_instruction_us"] = (small[1] - small[0]) / 1000 * 1e6

    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"checks: {'all' if hazards else 'no hazards'}; BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS')}")
        for name in ("matmul", "tensor_add"):
            r = out[name]
            ok = "ok" if r["ratio"] <= r["target_ratio"] else "SLOWER THAN TARGET"
            print(f"{name:10s} device {r['device_ms']:8.1f} ms  numpy {r['numpy_ms']:7.1f} ms  ratio "
                  f"{r['ratio']:5.2f}x (target {r['target_ratio']}x: {ok}), {r['instructions']} instructions")
        print(f"per-instruction overhead: {out['per_instruction_us']:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
