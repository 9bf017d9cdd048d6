"""`nki.language` functions that allocate, move or compute data.

These return a new tile (Beta 1, and the Beta-2 convenience wrappers that NKI
0.3 reintroduced).  Sources: aws-neuron-sdk nki/api/nki/language/__init__.py
(0.6.0) and the 1db4d74e (Beta 1) version; ../shared/nki-facts.md §7.
"""

from __future__ import annotations

from .schema import (
    ANY_BUFFER, ANY_HBM, HBM_OR_SBUF, ON_CHIP, SBUF_ONLY, All, Any_, Dim, Eq, Free, Implies, Instruction, IsTensor, Le,
    SHARED_HBM, Lit, Numel, Operand, Result, Rule, TargetIn, same_tile, sig,
)

from .isa import NOT_ALU_OPS

R, W = "r", "w"

BINARY = (
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "equal", "not_equal", "less",
    "less_equal", "greater", "greater_equal", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
    "right_shift", "logical_and", "logical_or", "logical_xor", "fmod", "mod", "abs_max", "abs_min",
)
UNARY = (
    "abs", "square", "invert", "logical_not", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "gelu",
    "gelu_apprx_sigmoid", "gelu_apprx_tanh", "gelu_dx", "gelu_apprx_sigmoid_dx", "silu", "silu_dx", "softplus",
    "mish", "erf", "erf_dx", "reciprocal", "sin", "cos", "tan", "arctan", "ceil", "floor", "trunc", "negative",
    "sign",
)
REDUCE = ("sum", "max", "min", "mean", "prod", "var", "all")
B2_ONLY = frozenset({"abs_max", "abs_min", "gelu_apprx_sigmoid_dx"})
B1_ONLY = frozenset()

_X = Operand("x", R, ON_CHIP, scalar_ok=True)
_Y = Operand("y", R, ON_CHIP, scalar_ok=True)
_DST = Operand("dst", W, ON_CHIP)


def _unsupported(name: str) -> tuple:
    """Beta 2's element-wise wrappers the release notes list as not supported on the hardware."""
    b2 = frozenset({"beta2"})
    if name in NOT_ALU_OPS:
        what = "division" if name == "divide" else "modulo"
        return (Rule("NKI503", TargetIn(frozenset()),
                     f"not supported on the hardware: {what} is not an instruction (it works in simulation "
                     f"only; " + ("multiply by nl.reciprocal(y))" if name == "divide" else
                                  "compute x - y * floor(x / y) with supported operations)"), dialects=b2),)
    if name == "power":
        return (Rule("NKI503", IsTensor("y"), "nl.power needs a tile exponent: a scalar exponent is not supported "
                     "(pass a tile of the exponent)", dialects=b2),)
    return ()


def _binary(name: str) -> Instruction:
    return Instruction(
        name, "language", f"element-wise {name}(x, y) into a new tile", "vector", (_DST, _X, _Y),
        b2=sig("x, y, dtype=None"),
        b1=None if name in B2_ONLY else sig("x, y, *, dtype=None, mask=None, **kwargs"),
        result=Result(("broadcast", "x", "y"), dtype=("attr", "dtype", "@x")),
        rules=_unsupported(name) + (
            Rule("NKI501", Implies(All((IsTensor("x"), IsTensor("y"))), Eq(Dim("x", 0), Dim("y", 0))),
                    "x and y must have the same partition count (no partition broadcasting)",
                    dialects=frozenset({"beta2"})),
               # Beta 1 broadcasts a one-partition tile along the partitions (the nki.language.add examples of
               # the Beta-1 documentation tests: (1, 512) + (128, 512), (128, 1) + (1, 512))
               Rule("NKI501", Implies(All((IsTensor("x"), IsTensor("y"))),
                                      Any_((Eq(Dim("x", 0), Dim("y", 0)), Eq(Dim("x", 0), Lit(1)),
                                            Eq(Dim("y", 0), Lit(1))))),
                    "x and y must have the same partition count, or one of them 1 (broadcast along the "
                    "partitions)", dialects=frozenset({"beta1"}))),
        kind="elementwise",
    )


def _unary(name: str) -> Instruction:
    return Instruction(
        name, "language", f"element-wise {name}(x) into a new tile", "scalar|vector", (_DST, Operand("x", R, ON_CHIP)),
        b2=sig("x, dtype=None"),
        b1=None if name in B2_ONLY else sig("x, *, dtype=None, mask=None, **kwargs"),
        result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
        kind="elementwise",
    )


def _reduce(name: str) -> Instruction:
    return Instruction(
        name, "language", f"{name} over trailing free axes into a new tile", "vector", (_DST, Operand("x", R, ON_CHIP)),
        b2=sig("x, axis, dtype=None, keepdims=False"),
        b1=sig("x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs"),
        result=Result(("reduce", "x", "axis", "keepdims"), dtype=("attr", "dtype", "@x")),
        kind="reduce",
    )


def _alloc(name: str, b2: str, b1: str, shape: tuple, summary: str, dtype=("attr", "dtype", None),
           buffer=("attr", "buffer", "sbuf")) -> Instruction:
    return Instruction(
        name, "language", summary, "none", (Operand("dst", W, ANY_BUFFER),),
        b2=sig(b2), b1=sig(b1) if b1 else None, result=Result(shape, buffer=buffer, dtype=dtype), kind="alloc",
    )


INSTRUCTIONS = tuple(_binary(n) for n in BINARY) + tuple(_unary(n) for n in UNARY) + tuple(
    _reduce(n) for n in REDUCE) + (
    # ------------------------------------------------------------------ allocation
    _alloc("ndarray", "shape, dtype, buffer=sbuf, name='', address=None",
           "shape, dtype, *, buffer=None, name='', **kwargs",
           ("attr", "shape"), "allocate an uninitialised tensor"),
    _alloc("zeros", "shape, dtype, buffer=sbuf, name=''", "shape, dtype, *, buffer=None, name='', **kwargs",
           ("attr", "shape"), "allocate a tensor filled with 0"),
    _alloc("ones", "shape, dtype, buffer=sbuf, name=''", "shape, dtype, *, buffer=None, name='', **kwargs",
           ("attr", "shape"), "allocate a tensor filled with 1"),
    _alloc("full", "shape, fill_value, dtype, buffer=sbuf, name=''",
           "shape, fill_value, dtype, *, buffer=None, name='', **kwargs", ("attr", "shape"),
           "allocate a tensor filled with fill_value"),
    _alloc("rand", "shape, dtype, buffer=sbuf, name=''", "shape, dtype=np.float32, **kwargs", ("attr", "shape"),
           "allocate a tensor of random values"),
    _alloc("zeros_like", "x, dtype=None, buffer=None, name=''", "a, dtype=None, *, buffer=None, name='', **kwargs",
           ("like", "x"), "allocate zeros shaped like x", dtype=("attr", "dtype", "@x"),
           buffer=("attr", "buffer", "@x")),
    _alloc("empty_like", "x, dtype=None, buffer=None, name=''", "a, dtype=None, *, buffer=None, name='', **kwargs",
           ("like", "x"), "allocate an uninitialised tensor shaped like x", dtype=("attr", "dtype", "@x"),
           buffer=("attr", "buffer", "@x")),
    Instruction(
        "shared_identity_matrix", "language",
        "an n x n identity matrix in SBUF (Beta 1: a constant in shared HBM, like shared_constant, that the kernel "
        "loads)", "none",
        (Operand("dst", W, SBUF_ONLY, buffers_b1=frozenset({SHARED_HBM})),),
        b2=sig("n, dtype=uint8, dst=None"), b1=sig("n, dtype=np.uint8, **kwargs"),
        result=Result(("square", "n"), dtype=("attr", "dtype", "uint8"), buffer_b1=SHARED_HBM), kind="alloc",
    ),
    Instruction(
        "shared_constant", "language", "a constant array baked into the binary (shared HBM)", "none",
        (Operand("dst", W, ANY_BUFFER),), b2=sig("constant"), b1=sig("constant, dtype=None, **kwargs"),
        result=Result(("constant", "constant"), buffer="shared_hbm", dtype=("attr", "dtype", None)), kind="alloc",
    ),
    # ------------------------------------------------------------------ movement
    Instruction(
        "load", "language", "copy an HBM tensor (view) into a new SBUF tile", "dma",
        (Operand("dst", W, SBUF_ONLY), Operand("src", R, ANY_HBM, buffers_b1=ANY_HBM)),
        b2=sig("src, dtype=None"), b1=sig("src, *, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "src"), dtype=("attr", "dtype", "@src")),
        kind="dma",
    ),
    Instruction(
        "load_transpose2d", "language", "load a 2-D HBM tensor transposed into SBUF", "dma",
        (Operand("dst", W, SBUF_ONLY), Operand("src", R, ANY_HBM)),
        b2=sig("src, dtype=None"), b1=sig("src, *, mask=None, dtype=None, **kwargs"),
        result=Result(("transpose", "src"), dtype=("attr", "dtype", "@src")),
        kind="dma",
    ),
    Instruction(
        "store", "language", "copy an on-chip tile into an HBM tensor (view)", "dma",
        (Operand("dst", W, ANY_HBM), Operand("value", R, SBUF_ONLY, buffers_b1=ON_CHIP)),
        b2=sig("dst, value"), b1=sig("dst, value, *, mask=None, **kwargs"),
        rules=(Rule("NKI501", Eq(Numel("dst"), Numel("value")),
                    "dst and value must have the same number of elements"),),
        kind="dma",
    ),
    Instruction(
        "copy", "language", "copy a tile into a new SBUF tile", "vector",
        (_DST, Operand("x", R, ON_CHIP)),
        b2=sig("x, dtype=None"), b1=sig("src, *, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
    ),
    Instruction(
        "atomic_rmw", "language", "atomic read-modify-write of an HBM tensor (Beta 1)", "dma",
        (Operand("dst", "rw", ANY_HBM), Operand("value", R, ON_CHIP)),
        b1=sig("dst, value, op, *, mask=None, **kwargs"), kind="dma",
    ),
    # ------------------------------------------------------------------ compute
    Instruction(
        "matmul", "language", "x.T @ y (transpose_x=True) into a new PSUM tile", "tensor",
        (Operand("dst", W, frozenset({"psum"})), Operand("x", R, ON_CHIP), Operand("y", R, ON_CHIP)),
        b2=sig("x, y, transpose_x=False"), b1=sig("x, y, *, transpose_x=False, mask=None, **kwargs"),
        result=Result(("nl_matmul", "x", "y", "transpose_x"), buffer="psum", dtype="float32"),
        rules=(
            Rule("NKI202", Le(Dim("x", 0), Lit(128)), "matmul x partition size must be <= 128"),
            Rule("NKI202", Le(Dim("y", 0), Lit(128)), "matmul y partition size (K) must be <= 128"),
            Rule("NKI202", Le(Free("x"), Lit(128)), "matmul x free size must be <= 128"),
            Rule("NKI202", Le(Free("y"), Lit(512)), "matmul y free size must be <= 512"),
        ),
    ),
    Instruction(
        "transpose", "language", "swap the partition and free dimensions of a 2-D tile", "tensor",
        (Operand("dst", W, ON_CHIP), Operand("x", R, ON_CHIP)),
        b2=sig("x, dtype=None"), b1=sig("x, *, dtype=None, mask=None, **kwargs"),
        result=Result(("transpose", "x"), buffer="psum", dtype=("attr", "dtype", "@x")),
        rules=(Rule("NKI202", All((Le(Dim("x", 0), Lit(128)), Le(Free("x"), Lit(128)))),
                    "a transpose tile must be at most 128 x 128"),),
    ),
    Instruction(
        "softmax", "language", "softmax along axis into a new tile", "vector", (_DST, Operand("x", R, ON_CHIP)),
        b2=sig("x, axis=-1, dtype=None"), b1=sig("x, axis, *, dtype=None, compute_dtype=None, mask=None, **kwargs"),
        result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
    ),
    Instruction(
        "rms_norm", "language", "RMS normalisation of x with weights w", "vector",
        (_DST, Operand("x", R, ON_CHIP), Operand("w", R, ON_CHIP)),
        b2=sig("x, w, axis, n, epsilon=1e-06, dtype=None, compute_dtype=None"),
        b1=sig("x, w, axis, n, epsilon=1e-06, *, dtype=None, compute_dtype=None, mask=None, **kwargs"),
        result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
    ),
    Instruction(
        "where", "language", "select x where condition else y, into a new tile", "vector",
        (_DST, Operand("condition", R, ON_CHIP), _X, _Y),
        b2=sig("condition, x, y, dtype=None"), b1=sig("condition, x, y, *, dtype=None, mask=None, **kwargs"),
        result=Result(("broadcast", "x", "y"), dtype=("attr", "dtype", "@x")),
        rules=(Rule("NKI501", Implies(IsTensor("x"), same_tile("condition", "x")),
                    "condition and x must have the same tile shape"),),
    ),
    Instruction(
        "dropout", "language", "dropout with rate into a new tile", "vector",
        (_DST, Operand("x", R, ON_CHIP), Operand("rate", R, ON_CHIP, scalar_ok=True)),
        b2=sig("x, rate, dtype=None"), b1=sig("x, rate, *, dtype=None, mask=None, **kwargs"),
        result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
    ),
    Instruction(
        "gather_flattened", "language", "per-partition gather of data[p, indices[p, j]]", "gpsimd",
        (_DST, Operand("data", R, ON_CHIP), Operand("indices", R, ON_CHIP)),
        b2=sig("data, indices, axis=0, dtype=None"), b1=sig("data, indices, *, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "indices"), dtype=("attr", "dtype", "@data")),
        rules=(Rule("NKI501", Eq(Dim("data", 0), Dim("indices", 0)),
                    "data and indices must have the same partitions"),),
    ),
    Instruction(
        "broadcast_to", "language", "broadcast a tile to shape (from size-1 dims)", "vector",
        (_DST, Operand("x", R, ON_CHIP)),
        b2=sig("x, shape, dtype=None"), b1=sig("src, *, shape, **kwargs"),
        result=Result(("attr", "shape"), dtype=("attr", "dtype", "@x")),
    ),
    Instruction(
        "expand_dims", "language", "insert a size-1 axis", "none", (_DST, Operand("x", R, ANY_BUFFER)),
        b2=sig("x, axis"), b1=sig("data, axis"),
        result=Result(("expand", "x", "axis"), buffer="@x", dtype="@x"), kind="view",
    ),
    Instruction(
        "device_print", "language", "print a tensor at run time", "none",
        (Operand("tensor", R, HBM_OR_SBUF | ON_CHIP),),
        b2=sig("print_prefix, tensor"), b1=sig("prefix, x, *, mask=None, **kwargs"), kind="control",
    ),
    Instruction(
        "random_seed", "language", "seed the random generator from a [1, 1] tile", "vector",
        (Operand("seed", R, ON_CHIP),), b2=sig("seed"), b1=sig("seed, *, mask=None, **kwargs"), kind="control",
    ),
    Instruction(
        "all_reduce", "language", "reduce across SPMD programs (Beta 1)", "collective",
        (_DST, Operand("x", R, ON_CHIP)),
        b1=sig("x, op, program_axes, *, dtype=None, mask=None, parallel_reduce=True, asynchronous=False, **kwargs"),
        result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
    ),
    Instruction(
        "loop_reduce", "language", "associative reduction across affine loop iterations (Beta 1)", "vector",
        (_DST, Operand("x", R, ON_CHIP)),
        b1=sig("x, op, loop_indices, *, dtype=None, mask=None, **kwargs"),
        result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
    ),
    Instruction(
        "static_cast", "language", "cast a tile to dtype (Beta 1)", "vector", (_DST, Operand("x", R, ON_CHIP)),
        b1=sig("input_data, dtype"), result=Result(("like", "x"), dtype=("attr", "dtype", "@x")),
    ),
)

INSTRUCTIONS = INSTRUCTIONS + (
    Instruction(
        "__assign__", "language",
        "write a computed tile or a constant into a tensor view (`t[...] = v`, `t[...] += v`)",
        "none", (Operand("dst", "rw", ANY_BUFFER), Operand("src", R, ANY_BUFFER)),
        b2=sig("dst, src=None, value=None, accumulate=None"), b1=sig("dst, src=None, value=None, accumulate=None"),
        rules=(Rule("NKI501", Implies(IsTensor("src"), Eq(Numel("dst"), Numel("src"))),
                    "the value must have as many elements as the view it is written into"),),
        kind="assign",
    ),
)

# Beta-1 spells some parameters differently from the operand roles above
B1_PARAM_ROLES = {"copy": {"src": "x"}, "broadcast_to": {"src": "x"}, "expand_dims": {"data": "x"},
                  "zeros_like": {"a": "x"}, "empty_like": {"a": "x"}, "static_cast": {"input_data": "x"},
                  "device_print": {"x": "tensor"}}
