"""Generated programs that once disagreed, kept as regression tests (each note says what was wrong), and the
known verifier gaps the generator steers around (each a program that still disagrees, checked as such so
that a fix shows up)."""

from __future__ import annotations

from .programs import Capacity, Carried, Matmul, Pattern, Placement, Spmd, Tiled

REGRESSIONS = [
    # verifier: NKI403 reported for a loop that runs zero times for every admissible input (fixed: trip count)
    Tiled("beta2", "copy", "concrete", 1, 1, 32, 0, "exact", "affine", 0, (1, 1, 0, 0), True),
    # device: a placement outside the buffer was not checked for overlap (NKI302 missing next to NKI204)
    Placement(64, 512, (96, 0), (96, 0)),
    # device: a PSUM tile of 256 partitions at a manual address skipped the placement's range check (NKI204)
    Matmul("beta2", 256, 512, 512, 128, 256, 512, "affine", "manual", 0, "none", "float32", "divisible"),
    # device: only the first conflicting earlier access was reported (the verifier reports every write's line),
    # and an instruction that faulted (NKI501) did not log its write
    Tiled("beta2", "add", "concrete", 223, 290, 64, 512, "min", "affine", 0, (1, 0, 1, 0), True),
    # device: an operand of more than 128 partitions was only reported at its allocation
    Tiled("beta2", "exp", "free", 182, 1, 256, 512, "min", "range", 0, (0, 0, 0, 0), False),
    # device: a single-trip loop with known shapes is no loop for the front end (NKI403, not NKI401)
    Tiled("beta2", "exp", "given", 384, 64, 128, 64, "exact", "affine", 0, (0, 0, 0, 0), True),
    # device: NKI401 for a write whose conflicting access was in an earlier instance of the same static loop
    Tiled("beta2", "exp", "free", 192, 128, 64, 128, "exact", "affine", 0, (0, 0, 0, 0), True),
    # verifier: a read earlier in program order than the other core's write was no race (fixed: every order)
    Spmd("beta2", 2, 128, 128, 64, "concrete", "read_first"),
    # verifier: liveness without the loop's back edge: `a`, used at the top of a loop body, was taken as dead
    # when `b` was allocated later in the body, yet the next iteration uses it again (NKI204 missed; fixed)
    Capacity(30000, 30000, "loop_start", 2),
    # verifier: a shared tile reused by the copies of an affine loop inside an unrolled Python loop (a while loop
    # on known shapes) was used outside each copy, so no NKI403 (the device sees the loop's one site; fixed)
    Tiled("beta2", "copy", "concrete", 64, 128, 32, 64, "exact", "affine", 0, (0, 0, 0, 0), True, "while"),
    # a running row start (a steady step: the last tile partial) and a while loop over the rows, clean
    Tiled("beta2", "add", "free", 300, 700, 128, 512, "min", "affine", 0, (0, 0, 0, 0), False, "running"),
    Tiled("beta2", "exp", "free", 300, 700, 128, 512, "min", "sequential", 0, (0, 0, 0, 0), False, "while"),
    # a spread of clean programs of every template (agreement with numpy)
    Tiled("beta1", "add", "divisible", 256, 128, 128, 64, "mask", "affine", 0, (0, 0, 0, 0), False),
    Tiled("beta2", "scale", "free", 300, 700, 128, 512, "min", "sequential", 0, (0, 0, 0, 0), False),
    Matmul("beta2", 384, 256, 1024, 128, 128, 512, "sequential", "inside", 0, "first", "bfloat16", "divisible"),
    Matmul("beta2", 384, 256, 1024, 128, 128, 512, "affine", "inside", 0, "none", "bfloat16", "divisible"),
    Matmul("beta1", 256, 128, 512, 128, 128, 512, "sequential", "inside", 0, "plus", "float32", "concrete"),
    Carried("beta1", "plus_equals", "affine", 4, 128, 200),
    Carried("beta2", "shifted", "affine", 3, 128, 32),
    Spmd("beta1", 3, 128, 64, 512, "launcher"),
    Spmd("beta2", 2, 128, 128, 64, "concrete", "exchange"),
    Spmd("beta2", 2, 128, 128, 64, "concrete", "exchange_no_barrier"),
    Pattern(16, 64, ((65, 8), (2, 30)), 1),
    Capacity(30000, 30000, "loop_end", 2),
    Capacity(40000, 8192, "before_loop", 3),
]

KNOWN_GAPS = {
    "every matmul into PSUM is exempt from NKI401, even with accumulate=(kk > 0) in an affine_range loop, where "
    "iteration 0 must overwrite before the others accumulate (run in another order, the sum is lost)":
        Matmul("beta2", 384, 256, 1024, 128, 128, 512, "affine", "inside", 0, "first", "bfloat16", "divisible"),
    "a slice bound computed at run time is not wrapped when negative (NKI and the device wrap it like Python): "
    "x[r0 - 1:r1] at r0 = 0 is reported as a negative start (NKI101), t[0:r1 - r0] with r1 < r0 as a start "
    "after its end":
        Tiled("beta2", "exp", "divisible", 512, 256, 256, 128, "exact", "range", 0, (-1, 0, 0, 0), False),
    "covers_whole is structural: a write of t[0:min(r0 + 128, P) - r0, :] under `assert P % 128 == 0` always "
    "covers t, yet it is not taken as a whole overwrite, so NKI401 is reported where NKI403 applies":
        Tiled("beta2", "exp", "divisible", 128, 211, 128, 0, "min", "affine", 0, (0, 0, 0, 0), True),
}
