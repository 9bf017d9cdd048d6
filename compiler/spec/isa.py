"""`nki.isa` instructions: one declaration each.

Sources: aws-neuron-sdk nki/api/nki/isa/__init__.py (NKI 0.6.0 docstrings,
the Beta-2 `b2` signatures) and the same file at 1db4d74e (Beta 1, the `b1`
signatures); ../shared/nki-facts.md §6 summarises both.
"""

from __future__ import annotations

from . import dtypes as D
from .schema import (
    ANY_BUFFER, HBM_OR_SBUF, ON_CHIP, PSUM_ONLY, SBUF_ONLY, TRN2_UP,
    TRN3_ONLY, All, AttrIn, AttrInt, Any_, BufferIn, Dim, DtypeEq, DtypeIn, Eq, Free, Implies, Instruction, IsTensor,
    Le, Limit, Lit, OneOf,
    MultipleOf, NotBoth, Numel, Operand, PatternCount, Present, ReducedFree, Result, Rule, TargetIn, column_of,
    same_free, same_partitions, same_tile, sig, Times, TrailingAxes, LeadingFreeAxes,
)

R, W, RW = "r", "w", "rw"

BITVEC_OPS = frozenset({"invert", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"})
# operators the ISA's table of Vector/GpSimd ALU operators does not have (nki.api.shared, "Supported Math
# Operators for NKI ISA"; the release notes: "Division is not available as a hardware instruction")
NOT_ALU_OPS = frozenset({"divide", "fmod", "mod"})
# binary ops whose repeated application to one accumulator gives the same result in any order: a Beta-2
# `tensor_tensor(dst=acc, data1=acc, data2=x, op=...)` in an affine_range loop is an accumulation, not a race
REORDERABLE_OPS = frozenset({"add", "multiply", "maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor",
                             "logical_and", "logical_or", "logical_xor"})


def _alu_ops(*params: str) -> tuple:
    """NKI503 for an operator parameter given an operation the ALU does not have (Beta 2)."""
    return tuple(Rule("NKI503", Implies(AttrIn(p, NOT_ALU_OPS), TargetIn(frozenset())),
                      f"{p} must be an ALU operator: division and modulo are not instructions (multiply by "
                      f"nl.reciprocal, or compute the remainder from a floor division)", dialects=frozenset({"beta2"}))
                 for p in params)
MATMUL_IN = frozenset({"float8_e4m3", "float8_e5m2", "bfloat16", "float16", "tfloat32", "float32"})
MATMUL_IN_TRN3 = MATMUL_IN | {"float8_e4m3fn"}
FP32ISH = frozenset({"float32", "tfloat32"})
INT_DTYPES = D.INTS
PRED_DTYPES = frozenset({"uint8", "uint16", "uint32", "int8", "int16", "int32"})

# Beta-1 value-returning forms share these keyword tails
_B1_TAIL = "*, mask=None, dtype=None, **kwargs"


def _eltwise_rules(*roles: str) -> tuple:
    return (Rule("NKI501", same_tile(*roles),
                 f"{', '.join(roles)} must have the same partition count and elements per partition"),)


def _tile(name: str, mode: str = R, buffers=ON_CHIP, **kw) -> Operand:
    return Operand(name, mode, buffers, **kw)


DST = _tile("dst", W)
# nc_matmul without a performance mode (Beta 1's signature has no perf_mode: always this one)
PLAIN_MATMUL = AttrIn("perf_mode", frozenset({"none", "matmul_perf_mode.none"}), "none")
# nc_matmul as a matmul, not as a Tensor Engine transpose (is_transpose=True, which moves any dtype as it is:
# nki.isa.nc_transpose's reference)
NOT_TRANSPOSE = AttrIn("is_transpose", frozenset({False}))

INSTRUCTIONS = (
    # ------------------------------------------------------------------ data movement
    Instruction(
        "dma_copy", "isa", "copy src to dst through a DMA engine (HBM/SBUF); element counts must match",
        "dma", (Operand("dst", W, HBM_OR_SBUF), Operand("src", R, HBM_OR_SBUF, one_to_one=True)),
        b2=sig("dst, src, priority=None, oob_mode=oob_mode.error, dge_mode=dge_mode.unknown, "
               "engine=engine.unknown, name=None"),
        b1=sig("*, dst, src, mask=None, dst_rmw_op=None, oob_mode=oob_mode.error, dge_mode=dge_mode.unknown"),
        rules=(
            Rule("NKI501", Eq(Numel("dst"), Numel("src")), "dst and src must have the same number of elements"),
            Rule("NKI503", Implies(Present("priority"), TargetIn(TRN3_ONLY)), "DMA priority needs trn3"),
            Rule("NKI503", Implies(AttrIn("dge_mode", frozenset({"hwdge", "dge_mode.hwdge"})), TargetIn(TRN2_UP)),
                 "hardware DGE needs trn2 or trn3"),
        ),
        kind="dma",
    ),
    Instruction(
        "dma_transpose", "isa", "transpose through the DMA engine: dst (SBUF) = permuted src",
        "dma", (Operand("dst", W, SBUF_ONLY), Operand("src", R, HBM_OR_SBUF, one_to_one=True)),
        b2=sig("dst, src, axes=None, priority=None, dge_mode=dge_mode.unknown, oob_mode=oob_mode.error, name=None"),
        b1=sig("src, *, axes=None, mask=None, dtype=None, **kwargs"),
        result=Result(("transpose", "src"), dtype=("attr", "dtype", "@src")),
        rules=(
            Rule("NKI502", DtypeEq("dst", "src"), "dst and src must have the same dtype"),
            Rule("NKI501", Eq(Numel("dst"), Numel("src")), "dst must hold the permuted src"),
            Rule("NKI503", TargetIn(TRN2_UP), "dma_transpose is a Trainium2+ feature"),
        ),
        kind="dma",
    ),
    Instruction(
        "dma_compute", "isa", "dst = reduce_op over srcs (each scaled), through DMA",
        "dma", (Operand("dst", W, HBM_OR_SBUF), Operand("srcs", R, HBM_OR_SBUF, is_list=True)),
        b2=sig("dst, srcs, reduce_op, scales=None, unique_indices=True, oob_mode=oob_mode.error, name=None"),
        rules=(Rule("NKI502", AttrIn("reduce_op", frozenset({"add"})), "dma_compute supports only nl.add"),),
        kind="dma",
    ),
    Instruction(
        "tensor_copy", "isa", "copy src to dst on a compute engine (same partitions and elements per partition)",
        "vector|scalar|gpsimd", (DST, _tile("src", one_to_one=True)),
        b2=sig("dst, src, engine=engine.unknown, name=None"),
        b1=sig("src, *, mask=None, dtype=None, engine=engine.unknown, **kwargs"),
        result=Result(("like", "src"), dtype=("attr", "dtype", "@src")),
        rules=_eltwise_rules("dst", "src") + (
            Rule("NKI303", Implies(AttrIn("engine", frozenset({"gpsimd"})),
                                   All((BufferIn("dst", SBUF_ONLY), BufferIn("src", SBUF_ONLY)))),
                 "GpSimd cannot access PSUM: dst and src must be in SBUF"),
        ),
    ),
    Instruction(
        "tensor_copy_predicated", "isa", "dst = src where predicate is true, else dst unchanged",
        "vector", (_tile("dst", RW), _tile("src", scalar_ok=True, one_to_one=True), _tile("predicate")),
        b2=sig("dst, src, predicate, reverse_pred=False, name=None"),
        b1=sig("*, src, dst, predicate, reverse_pred=False, mask=None, dtype=None, **kwargs"),
        rules=(
            Rule("NKI501", same_tile("dst", "predicate"), "dst and predicate must have the same tile shape"),
            Rule("NKI501", Implies(IsTensor("src"), same_tile("dst", "src")),
                 "dst and src must have the same tile shape"),
            Rule("NKI303", NotBoth("src", "predicate", "psum"), "src and predicate cannot both be in PSUM"),
            Rule("NKI502", Implies(IsTensor("src"), DtypeEq("dst", "src")), "src.dtype must equal dst.dtype"),
        ),
    ),
    Instruction(
        "memset", "isa", "fill dst with a constant value",
        "vector|gpsimd", (DST,),
        b2=sig("dst, value, engine=engine.unknown, name=None"),
        b1=sig("shape, value, dtype, *, mask=None, engine=engine.unknown, **kwargs"),
        result=Result(("attr", "shape"), dtype=("attr", "dtype", None)),
    ),
    Instruction(
        "nc_stream_shuffle", "isa", "shuffle partitions within each 32-partition quadrant",
        "vector", (DST, _tile("src")),
        b2=sig("dst, src, shuffle_mask, name=None"),
        b1=sig("src, dst, shuffle_mask, *, dtype=None, mask=None, **kwargs"),
        rules=(
            Rule("NKI501", same_free("dst", "src"), "dst and src must have the same elements per partition"),
            Rule("NKI502", DtypeEq("dst", "src"), "dst and src must have the same dtype"),
        ),
    ),
    Instruction(
        "local_gather", "isa", "GpSimd gather within each 16-partition group",
        "gpsimd", (Operand("dst", W, SBUF_ONLY), Operand("src_buffer", R, SBUF_ONLY), Operand("index", R, SBUF_ONLY)),
        b2=sig("dst, src_buffer, index, num_elem_per_idx=1, num_valid_indices=None, name=None"),
        b1=sig("src_buffer, index, num_elem_per_idx=1, num_valid_indices=None, *, mask=None"),
        # each partition receives num_valid_indices (default: every index of its core's 16-partition slice) times
        # num_elem_per_idx elements (the SDK's example: (128, 4, 16, 4) for 64 indices of 4 elements)
        result=Result(("local_gather", "index", "num_valid_indices", "num_elem_per_idx"),
                      dtype=("attr", "dtype", "@src_buffer")),
        rules=(
            Rule("NKI502", DtypeIn("index", frozenset({"uint16"})), "index must be uint16"),
            Rule("NKI502", DtypeEq("dst", "src_buffer"), "dst.dtype must equal src_buffer.dtype"),
            Rule("NKI501", Eq(Dim("src_buffer", 0), Dim("index", 0)),
                 "src_buffer and index must have the same partitions"),
            Rule("NKI501", MultipleOf(Dim("src_buffer", 0), 16), "partition count must be a multiple of 16"),
            Rule("NKI202", OneOf(AttrInt("num_elem_per_idx"), (1, 2, 4, 8, 16, 32)),
                 "num_elem_per_idx must be 1, 2, 4, 8, 16 or 32"),
            Rule("NKI202", Le(AttrInt("num_valid_indices"), Lit(4096)),
                 "at most 4096 indices per core (num_valid_indices)"),
        ),
    ),
    Instruction(
        "nc_n_gather", "isa", "per-partition gather dst[p, j] = data[p, indices[p, j]]",
        "gpsimd", (Operand("dst", W, SBUF_ONLY), Operand("data", R, SBUF_ONLY), Operand("indices", R, SBUF_ONLY)),
        b2=sig("dst, data, indices, name=None"),
        rules=(
            Rule("NKI501", same_partitions("dst", "data", "indices"),
                 "dst, data and indices must have the same partitions"),
            Rule("NKI501", same_free("dst", "indices"), "dst and indices must have the same elements per partition"),
            Rule("NKI502", DtypeIn("indices", frozenset({"uint32"})), "indices must be uint32"),
            Rule("NKI502", DtypeEq("dst", "data"), "dst.dtype must equal data.dtype"),
        ),
    ),
    Instruction(
        "sendrecv", "isa", "exchange an SBUF tile with the peer core of an LNC2 kernel",
        "dma", (Operand("src", R, SBUF_ONLY), Operand("dst", W, SBUF_ONLY)),
        b2=sig("src, dst, send_to_rank, recv_from_rank, pipe_id, dma_engine=dma_engine.dma, name=None"),
        rules=(
            Rule("NKI501", same_tile("src", "dst"), "src and dst must have the same shape"),
            Rule("NKI502", DtypeEq("src", "dst"), "src and dst must have the same dtype"),
            Rule("NKI503", TargetIn(TRN2_UP), "sendrecv needs trn2 or trn3 with LNC=2"),
        ),
        targets=TRN2_UP,
        kind="dma",
    ),
    Instruction(
        "core_barrier", "isa", "synchronise the two cores of an LNC2 kernel on a shared HBM tensor",
        "gpsimd", (Operand("data", R, ANY_BUFFER),),
        b2=sig("data, cores, engine=engine.gpsimd, name=None"),
        rules=(Rule("NKI503", TargetIn(TRN2_UP), "core_barrier needs trn2 or trn3"),),
        targets=TRN2_UP,
        kind="control",
    ),
    # ------------------------------------------------------------------ tensor engine
    Instruction(
        "nc_matmul", "isa", "dst[M, N] (PSUM) (+)= stationary[K, M].T @ moving[K, N] on the Tensor Engine",
        "tensor", (Operand("dst", W, PSUM_ONLY), Operand("stationary", R, SBUF_ONLY, one_to_one="is_transpose"),
                   Operand("moving", R, SBUF_ONLY)),
        b2=sig("dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False, "
               "accumulate=None, tile_position=(), tile_size=(), perf_mode=matmul_perf_mode.none, name=None"),
        b1=sig("stationary, moving, *, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False, "
               "tile_position=(), tile_size=(), mask=None, **kwargs"),
        result=Result(("matmul", "stationary", "moving"), buffer="psum", dtype="float32"),
        rules=(
            Rule("NKI501", Implies(PLAIN_MATMUL,
                                   Eq(Dim("stationary", 0), Dim("moving", 0))),
                 "stationary and moving must have the same contraction (partition) size K"),
            Rule("NKI202", Le(Dim("stationary", 0), Lit(128)), "the contraction size K must be <= 128"),
            Rule("NKI202", Implies(PLAIN_MATMUL,
                                   Le(Free("stationary"), Limit("gemm_stationary_fmax"))),
                 "the stationary free size M must be <= 128"),
            Rule("NKI202", Implies(PLAIN_MATMUL,
                                   Le(Free("moving"), Limit("matmul_moving_fmax_fp32"))),
                 "the moving free size N must fit the target's matmul limit (512 on trn1/trn2)",
                 targets=frozenset({"trn1", "trn2"})),
            Rule("NKI202", Implies(PLAIN_MATMUL,
                                   Le(Free("moving"), Limit("matmul_moving_fmax_bf16"))),
                 "the moving free size N must be <= 8192 (bf16 dst) / 4096 (fp32 dst) on trn3",
                 targets=TRN3_ONLY),
            Rule("NKI202", Implies(All((PLAIN_MATMUL,
                                        DtypeIn("dst", frozenset({"float32"})))),
                                   Le(Free("moving"), Limit("matmul_moving_fmax_fp32"))),
                 "the moving free size N must be <= 4096 with an fp32 dst on trn3", targets=TRN3_ONLY),
            Rule("NKI501", Implies(PLAIN_MATMUL,
                                   Eq(Dim("dst", 0), Free("stationary"))),
                 "dst partitions must equal the stationary free size M"),
            Rule("NKI501", Implies(PLAIN_MATMUL,
                                   Eq(Free("dst"), Free("moving"))),
                 "dst free size must equal the moving free size N"),
            Rule("NKI502", Implies(NOT_TRANSPOSE, DtypeIn("stationary", MATMUL_IN)),
                 "stationary dtype must be fp8/bf16/fp16/tf32/fp32",
                 targets=frozenset({"trn1", "trn2"})),
            Rule("NKI502", Implies(NOT_TRANSPOSE, DtypeIn("moving", MATMUL_IN)),
                 "moving dtype must be fp8/bf16/fp16/tf32/fp32",
                 targets=frozenset({"trn1", "trn2"})),
            Rule("NKI502", Implies(NOT_TRANSPOSE, DtypeIn("stationary", MATMUL_IN_TRN3)),
                 "stationary dtype must be fp8/bf16/fp16/tf32/fp32",
                 targets=TRN3_ONLY),
            Rule("NKI502", Implies(NOT_TRANSPOSE, DtypeIn("moving", MATMUL_IN_TRN3)),
                 "moving dtype must be fp8/bf16/fp16/tf32/fp32",
                 targets=TRN3_ONLY),
            Rule("NKI502", Implies(All((NOT_TRANSPOSE, Any_((DtypeIn("stationary", FP32ISH),
                                                              DtypeIn("moving", FP32ISH))))),
                                   All((DtypeIn("stationary", FP32ISH), DtypeIn("moving", FP32ISH)))),
                 "if either matmul input is fp32/tf32, both must be"),
            Rule("NKI502", Implies(AttrIn("is_transpose", frozenset({False})), DtypeIn("dst", frozenset({"float32"}))),
                 "the matmul destination must be float32 on trn1/trn2", targets=frozenset({"trn1", "trn2"})),
            Rule("NKI502", Implies(AttrIn("is_transpose", frozenset({False})),
                                   DtypeIn("dst", frozenset({"float32", "bfloat16"}))),
                 "the matmul destination must be float32 or bfloat16 on trn3", targets=TRN3_ONLY),
            Rule("NKI503", Implies(AttrIn("perf_mode", frozenset({"double_row", "matmul_perf_mode.double_row"})),
                                   TargetIn(TRN2_UP)), "double_row matmul needs trn2 or trn3"),
        ),
    ),
    Instruction(
        "nc_matmul_mx", "isa", "MX (microscaled fp8/fp4) matmul on the Tensor Engine (trn3)",
        "tensor", (Operand("dst", W, PSUM_ONLY), Operand("stationary", R, SBUF_ONLY), Operand("moving", R, SBUF_ONLY),
                   Operand("stationary_scale", R, SBUF_ONLY), Operand("moving_scale", R, SBUF_ONLY)),
        b2=sig("dst, stationary, moving, stationary_scale, moving_scale, tile_position=None, tile_size=None, "
               "accumulate=None, name=None"),
        rules=(
            Rule("NKI503", TargetIn(TRN3_ONLY), "nc_matmul_mx needs trn3"),
            Rule("NKI501", Eq(Dim("stationary", 0), Dim("moving", 0)), "stationary and moving must share K"),
            Rule("NKI202", Le(Dim("stationary", 0), Lit(128)), "the contraction (partition) size K must be <= 128"),
            Rule("NKI202", Le(Free("stationary"), Lit(128)), "the stationary free size must be <= 128"),
            Rule("NKI202", Le(Free("moving"), Lit(1024)),
                 "the moving free size N must be <= 1024 (bfloat16 dst) / 512 (float32 dst)"),
            Rule("NKI202", Implies(DtypeIn("dst", frozenset({"float32"})), Le(Free("moving"), Lit(512))),
                 "the moving free size N must be <= 512 with a float32 dst"),
            Rule("NKI501", Eq(Dim("dst", 0), Free("stationary")),
                 "dst partitions must equal the stationary free size M"),
            Rule("NKI501", Eq(Free("dst"), Free("moving")), "dst free size must equal the moving free size N"),
            Rule("NKI502", DtypeIn("dst", frozenset({"float32", "bfloat16"})), "dst must be float32 or bfloat16"),
            Rule("NKI502", DtypeIn("stationary", D.MX_DATA), "stationary must be an x4 MX dtype"),
            Rule("NKI502", DtypeIn("moving", D.MX_DATA), "moving must be an x4 MX dtype"),
        ),
        targets=TRN3_ONLY,
    ),
    Instruction(
        "nc_transpose", "isa", "dst[F, P] = data[P, F] (Tensor Engine via PSUM, or Vector Engine up to 32x32)",
        "tensor|vector", (_tile("dst", W), _tile("data", one_to_one=True)),
        b2=sig("dst, data, engine=engine.unknown, name=None"),
        b1=sig("data, *, mask=None, dtype=None, engine=engine.unknown, **kwargs"),
        result=Result(("transpose", "data"), buffer="psum", dtype=("attr", "dtype", "@data")),
        rules=(
            Rule("NKI501", All((Eq(Dim("dst", 0), Free("data")), Eq(Free("dst"), Dim("data", 0)))),
                 "dst must be the transpose of data ([F, P] for data [P, F])"),
            Rule("NKI202", All((Le(Dim("data", 0), Lit(128)), Le(Free("data"), Lit(128)))),
                 "a transpose tile must be at most 128 x 128"),
            Rule("NKI202", Implies(AttrIn("engine", frozenset({"vector"})),
                                   All((Le(Dim("data", 0), Lit(32)), Le(Free("data"), Lit(32))))),
                 "a Vector Engine transpose is at most 32 x 32"),
            Rule("NKI303", Implies(AttrIn("engine", frozenset({"tensor"})),
                                   All((BufferIn("data", SBUF_ONLY), BufferIn("dst", PSUM_ONLY)))),
                 "a Tensor Engine transpose reads SBUF and writes PSUM"),
            Rule("NKI502", DtypeEq("dst", "data"), "dst must have the dtype of data"),
        ),
    ),
    # ------------------------------------------------------------------ vector / scalar / gpsimd compute
    Instruction(
        "tensor_tensor", "isa", "dst = op(data1, data2) element-wise",
        "vector|gpsimd", (DST, _tile("data1", one_to_one=True), _tile("data2", one_to_one=True)),
        b2=sig("dst, data1, data2, op, engine=engine.unknown, name=None"),
        b1=sig("data1, data2, op, *, dtype=None, mask=None, engine=engine.unknown, **kwargs"),
        result=Result(("like", "data1"), dtype=("attr", "dtype", "@data1")),
        rules=(
            Rule("NKI501", same_tile("dst", "data1", "data2"),
                 "dst, data1, data2 must have the same partition count and elements per partition",
                 dialects=frozenset({"beta2"})),
            # Beta 1: the documentation asks for the same shapes too (and points to tensor_scalar to broadcast),
            # but the compiler accepts data2 as a (P, 1) column broadcast along the free axis, and kernels rely
            # on it (conv2d bias adds): that form is a warning, any other mismatch an error
            Rule("NKI501", Any_((same_tile("dst", "data1", "data2"),
                                 All((same_tile("dst", "data1"), column_of("data2", "data1"))))),
                 "dst, data1, data2 must have the same partition count and elements per partition",
                 dialects=frozenset({"beta1"})),
            Rule("NKI501", Any_((same_tile("dst", "data1", "data2"), Le(Lit(2), Free("data2")))),
                 "data2 is a (P, 1) column where data1 has more elements per partition: the documentation asks for "
                 "the same shapes (use tensor_scalar to broadcast a column), though the Beta-1 compiler accepts it",
                 dialects=frozenset({"beta1"}), severity="warning"),
            Rule("NKI303", NotBoth("data1", "data2", "psum"), "data1 and data2 cannot both be in PSUM"),
            Rule("NKI502", Implies(AttrIn("op", BITVEC_OPS), All((DtypeIn("data1", INT_DTYPES),
                                                                  DtypeIn("data2", INT_DTYPES),
                                                                  DtypeIn("dst", INT_DTYPES)))),
                 "bitwise ops need integer operands and dst"),
            Rule("NKI303", Implies(Any_((AttrIn("op", frozenset({"power"})), AttrIn("engine", frozenset({"gpsimd"})))),
                                   All((BufferIn("dst", SBUF_ONLY), BufferIn("data1", SBUF_ONLY),
                                        BufferIn("data2", SBUF_ONLY)))),
                 "nl.power runs on GpSimd, which cannot access PSUM: dst, data1 and data2 must be in SBUF"),
        ) + _alu_ops("op"),
    ),
    Instruction(
        "tensor_scalar", "isa", "dst = (data op0 operand0) op1 operand1, operands scalars or (P, 1) tiles",
        "vector|scalar|gpsimd",
        (DST, _tile("data", one_to_one=True), _tile("operand0", scalar_ok=True), _tile("operand1", scalar_ok=True)),
        b2=sig("dst, data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, "
               "engine=engine.unknown, name=None"),
        b1=sig("data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, *, dtype=None, "
               "mask=None, engine=engine.unknown, **kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data") + (
            Rule("NKI501", column_of("operand0", "data"), "a tensor operand0 must be a (P, 1) tile"),
            Rule("NKI501", column_of("operand1", "data"), "a tensor operand1 must be a (P, 1) tile"),
            Rule("NKI502", Implies(Any_((AttrIn("op0", BITVEC_OPS), AttrIn("op1", BITVEC_OPS))),
                                   All((DtypeIn("data", INT_DTYPES), DtypeIn("dst", INT_DTYPES)))),
                 "bitwise ops need integer data and dst"),
            Rule("NKI502", Implies(All((Present("op1"), Any_((AttrIn("op0", BITVEC_OPS), AttrIn("op1", BITVEC_OPS))))),
                                   All((AttrIn("op0", BITVEC_OPS), AttrIn("op1", BITVEC_OPS)))),
                 "op0 and op1 must both be bitwise or both arithmetic"),
        ) + _alu_ops("op0", "op1"),
    ),
    Instruction(
        "scalar_tensor_tensor", "isa", "dst = (data op0 operand0) op1 operand1, operand1 a full tile",
        "vector", (DST, _tile("data", one_to_one=True), _tile("operand0", scalar_ok=True),
                   _tile("operand1", one_to_one=True)),
        b2=sig("dst, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, name=None"),
        b1=sig("*, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, dtype=None, mask=None, "
               "**kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data", "operand1") + (
            Rule("NKI501", column_of("operand0", "data"), "a tensor operand0 must be a (P, 1) tile"),
            Rule("NKI303", NotBoth("data", "operand1", "psum"), "data and operand1 cannot both be in PSUM"),
        ) + _alu_ops("op0", "op1"),
    ),
    Instruction(
        "tensor_reduce", "isa", "dst = op-reduction of data over trailing free axes",
        "vector", (DST, _tile("data")),
        b2=sig("dst, op, data, axis, negate=False, keepdims=False, name=None"),
        b1=sig("op, data, axis, *, mask=None, dtype=None, negate=False, keepdims=False, **kwargs"),
        result=Result(("reduce", "data", "axis", "keepdims"), dtype=("attr", "dtype", "@data")),
        rules=(
            Rule("NKI501", same_partitions("dst", "data"), "dst and data must have the same partitions"),
            Rule("NKI501", Eq(Free("dst"), ReducedFree("data", "axis")),
                 "dst must hold data's elements per partition without the reduced axes"),
            Rule("NKI501", TrailingAxes("data", "axis"),
                 "axis must name the last free axes of data, contiguous and ending at its last one (never axis 0)",
                 dialects=frozenset({"beta2"})),
            # Beta 1's documentation: the axes "must contain axis 1" (which it calls the most minor) and be
            # consecutive ([1, 2, 3, 4] is legal); AWS's Beta-1 flash attention reduces axis 1 of a 3-axis tile.
            # Which end it means is unclear beyond two axes, so either consecutive run is accepted
            Rule("NKI501", Any_((LeadingFreeAxes("data", "axis"), TrailingAxes("data", "axis"))),
                 "axis must name consecutive free axes of data, from axis 1 or ending at the last axis (never "
                 "axis 0)", dialects=frozenset({"beta1"})),
        ),
        kind="reduce",
    ),
    Instruction(
        "tensor_partition_reduce", "isa", "reduce across partitions (GpSimd)",
        "gpsimd", (Operand("dst", W, SBUF_ONLY), Operand("data", R, SBUF_ONLY)),
        b2=sig("dst, op, data, name=None"),
        b1=sig("op, data, *, mask=None, dtype=None, **kwargs"),
        result=Result(("partition_reduce", "data"), dtype=("attr", "dtype", "@data")),
        rules=(Rule("NKI501", same_free("dst", "data"), "dst and data must have the same elements per partition"),),
        kind="reduce",
    ),
    Instruction(
        "tensor_tensor_scan", "isa", "per-partition scan r[i] = op1(op0(data0[i], r[i-1]), data1[i])",
        "vector", (DST, _tile("data0"), _tile("data1"), _tile("initial", scalar_ok=True)),
        b2=sig("dst, data0, data1, initial, op0, op1, reverse0=False, reverse1=False, name=None"),
        b1=sig("data0, data1, initial, op0, op1, reverse0=False, reverse1=False, *, dtype=None, mask=None, **kwargs"),
        result=Result(("like", "data0"), dtype=("attr", "dtype", "@data0")),
        rules=_eltwise_rules("dst", "data0", "data1") + (
            Rule("NKI501", column_of("initial", "data0"), "a tensor initial must be a (P, 1) tile"),
            Rule("NKI303", NotBoth("data0", "data1", "psum"), "data0 and data1 cannot both be in PSUM"),
        ) + _alu_ops("op0", "op1"),
    ),
    Instruction(
        "tensor_scalar_cumulative", "isa", "running op1-accumulation of op0(src, imm0) along the free axis",
        "vector", (DST, _tile("src"), _tile("imm0", scalar_ok=True), _tile("imm1", scalar_ok=True)),
        b2=sig("dst, src, op0, op1, imm0, imm1=None, reduce_cmd=reduce_cmd.reset_reduce, name=None"),
        rules=_eltwise_rules("dst", "src"),
    ),
    Instruction(
        "tensor_scalar_reduce", "isa", "dst = data op0 operand0, reduce_res = reduction over the free axes",
        "vector", (DST, _tile("data"), _tile("operand0", scalar_ok=True), _tile("reduce_res", W)),
        b2=sig("dst, data, op0, operand0, reduce_op, reduce_res=None, reverse0=False, "
               "reduce_cmd=reduce_cmd.reset_reduce, reduce_init=None, reduce_res_negate=False, name=None"),
        b1=sig("*, data, op0, operand0, reduce_op, reduce_res, reverse0=False, dtype=None, mask=None, **kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data") + (
            Rule("NKI501", column_of("reduce_res", "data"), "reduce_res must be a (P, 1) tile"),
            Rule("NKI501", column_of("operand0", "data"), "a tensor operand0 must be a (P, 1) tile"),
        ),
    ),
    Instruction(
        "activation", "isa", "dst = op(data * scale + bias) on the Scalar Engine, optional reduction",
        "scalar", (DST, _tile("data"), _tile("bias", scalar_ok=True), _tile("scale", scalar_ok=True),
                   _tile("reduce_res", W)),
        b2=sig("dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, "
               "reduce_cmd=reduce_cmd.idle, name=None"),
        b1=sig("op, data, *, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=reduce_cmd.idle, "
               "mask=None, dtype=None, **kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data") + (
            Rule("NKI501", column_of("bias", "data"), "bias must be a (P, 1) tile"),
            Rule("NKI501", column_of("scale", "data"), "a tensor scale must be a (P, 1) tile"),
            Rule("NKI501", column_of("reduce_res", "data"), "reduce_res must be a (P, 1) tile"),
            Rule("NKI502", Implies(IsTensor("bias"), DtypeIn("bias", D.ALL - {"tfloat32"})),
                 "bias cannot be tfloat32"),
            Rule("NKI503", Implies(Present("bias"), Any_((IsTensor("bias"), TargetIn(TRN2_UP)))),
                 "a scalar bias needs trn2 or trn3 (trn1 takes a (P, 1) tile)"),
            Rule("NKI502", Implies(IsTensor("scale"), DtypeIn("scale", frozenset({"float32"}))),
                 "a tensor scale must be float32"),
        ),
    ),
    Instruction(
        "activation_reduce", "isa", "activation with a reduction into reduce_res (legacy form)",
        "scalar", (DST, _tile("data"), _tile("reduce_res", W), _tile("bias", scalar_ok=True),
                   _tile("scale", scalar_ok=True)),
        b2=sig("dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, name=None"),
        b1=sig("op, data, *, reduce_op, reduce_res, bias=None, scale=1.0, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data") + (
            Rule("NKI501", column_of("reduce_res", "data"), "reduce_res must be a (P, 1) tile"),
            Rule("NKI501", column_of("bias", "data"), "bias must be a (P, 1) tile"),
        ),
    ),
    Instruction(
        "activate2", "isa", "dst = op((data op0 imm0) op1 imm1) on the Scalar Engine (trn3)",
        "scalar", (DST, _tile("data"), _tile("imm0", scalar_ok=True), _tile("imm1", scalar_ok=True),
                   _tile("reduce_res", W)),
        b2=sig("dst, op, data, imm0, imm1, op0, op1, relu_param=0.0, reverse0=False, reverse1=False, "
               "reduce_op=None, reduce_res=None, reduce_cmd=reduce_cmd.idle, name=None"),
        rules=_eltwise_rules("dst", "data") + (Rule("NKI503", TargetIn(TRN3_ONLY), "activate2 needs trn3"),),
        targets=TRN3_ONLY,
    ),
    Instruction(
        "exponential", "isa", "dst = exp(src - max_value) with optional running sum (trn3)",
        "vector", (DST, _tile("src"), _tile("max_value", scalar_ok=True), _tile("reduce_res", W)),
        b2=sig("dst, src, max_value=0.0, reduce_res=None, reduce_cmd=reduce_cmd.idle, reduce_init=0.0, name=None"),
        rules=_eltwise_rules("dst", "src") + (Rule("NKI503", TargetIn(TRN3_ONLY), "exponential needs trn3"),),
        targets=TRN3_ONLY,
    ),
    Instruction(
        "reciprocal", "isa", "dst = 1 / data (Vector Engine, fp32 math)",
        "vector", (DST, _tile("data", one_to_one=True)),
        b2=sig("dst, data, name=None"),
        b1=sig("data, *, dtype=None, mask=None, **kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data"),
    ),
    Instruction(
        "iota", "isa", "dst = offset + c * channel_multiplier + sum(step * index) over an access pattern",
        "gpsimd", (Operand("dst", W, SBUF_ONLY),),
        b2=sig("dst, pattern, offset=0, channel_multiplier=0, name=None"),
        b1=sig("expr, dtype, *, mask=None, **kwargs"),
        result=Result(("grid", "expr"), dtype=("attr", "dtype", None)),
        rules=(Rule("NKI501", Eq(Free("dst"), PatternCount("pattern")),
                    "the pattern's element count must equal dst's elements per partition",
                    dialects=frozenset({"beta2"})),),
    ),
    Instruction(
        "affine_select", "isa", "dst = on_true_tile where cmp_op(affine value, 0) else on_false_value",
        # Beta 1 takes a PSUM tile too: its docstring names no buffer, and AWS's own Beta-1 attention kernels
        # (nki-samples' reference attention, the SDK's sd_attention) mask the matmul result straight from PSUM
        "gpsimd", (Operand("dst", W, SBUF_ONLY), Operand("on_true_tile", R, SBUF_ONLY, buffers_b1=ON_CHIP)),
        b2=sig("dst, pattern, channel_multiplier, on_true_tile, on_false_value, cmp_op=equal, offset=0, name=None"),
        b1=sig("pred, on_true_tile, on_false_value, *, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "on_true_tile"), dtype=("attr", "dtype", "@on_true_tile")),
        rules=_eltwise_rules("dst", "on_true_tile") + (
            Rule("NKI501", Eq(Free("dst"), PatternCount("pattern")),
                 "the pattern's element count must equal dst's elements per partition",
                 dialects=frozenset({"beta2"})),
        ),
    ),
    Instruction(
        "range_select", "isa", "keep on_true_tile where the free index lies within per-partition bounds",
        "vector", (DST, _tile("on_true_tile"), _tile("bound0"), _tile("bound1"), _tile("reduce_res", W)),
        b2=sig("dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=reduce_cmd.reset_reduce, "
               "reduce_res=None, reduce_op=maximum, range_start=0, on_false_value=None, name=None"),
        b1=sig("*, on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=reduce_cmd.idle, reduce_res=None, "
               "reduce_op=np.amax, range_start=0, on_false_value=fp32.min, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "on_true_tile"), dtype=("attr", "dtype", "@on_true_tile")),
        rules=_eltwise_rules("dst", "on_true_tile") + (
            Rule("NKI501", column_of("bound0", "on_true_tile"), "bound0 must have one element per partition"),
            Rule("NKI501", column_of("bound1", "on_true_tile"), "bound1 must have one element per partition"),
            Rule("NKI503", TargetIn(TRN2_UP), "range_select needs trn2 or trn3"),
        ),
    ),
    Instruction(
        "select_reduce", "isa", "dst = where(predicate, on_true, on_false), optional max reduction",
        "vector",
        (DST, _tile("predicate"), _tile("on_true"), _tile("on_false", scalar_ok=True), _tile("reduce_res", W)),
        b2=sig("dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd=reduce_cmd.idle, reduce_op=maximum, "
               "reverse_pred=False, name=None"),
        b1=sig("*, dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd=reduce_cmd.idle, reduce_op=np.amax, "
               "reverse_pred=False, mask=None, dtype=None, **kwargs"),
        rules=_eltwise_rules("dst", "on_true", "predicate") + (
            Rule("NKI303", NotBoth("on_true", "predicate", "psum"), "on_true and predicate cannot both be in PSUM"),
            Rule("NKI501", column_of("on_false", "on_true"), "a tensor on_false must be a (P, 1) tile"),
        ),
    ),
    Instruction(
        "bn_stats", "isa", "batch-norm statistics: 6 values per partition",
        "vector", (DST, _tile("data")),
        b2=sig("dst, data, name=None"),
        b1=sig("data, *, mask=None, dtype=None, **kwargs"),
        result=Result(("partitions_and", "data", 6), dtype=("attr", "dtype", "@data")),
        rules=(
            Rule("NKI501", same_partitions("dst", "data"), "dst and data must have the same partitions"),
            Rule("NKI202", Le(Free("data"), Limit("bn_stats_fmax")), "bn_stats data free size must be <= 512"),
            Rule("NKI501", Eq(Free("dst"), Lit(6)), "bn_stats writes 6 values per partition"),
        ),
    ),
    Instruction(
        "bn_aggr", "isa", "aggregate bn_stats triples into mean and variance (2 values per partition)",
        "vector", (DST, _tile("data")),
        b2=sig("dst, data, name=None"),
        b1=sig("data, *, mask=None, dtype=None, **kwargs"),
        result=Result(("partitions_and", "data", 2), dtype=("attr", "dtype", "@data")),
        rules=(
            Rule("NKI501", same_partitions("dst", "data"), "dst and data must have the same partitions"),
            Rule("NKI501", MultipleOf(Free("data"), 3), "bn_aggr data must hold (count, mean, var) triples"),
            Rule("NKI501", Eq(Free("dst"), Lit(2)), "bn_aggr writes 2 values per partition"),
        ),
    ),
    Instruction(
        "max8", "isa", "the 8 largest values of each partition, descending",
        "vector", (DST, _tile("src")),
        b2=sig("dst, src, name=None"),
        b1=sig("*, src, mask=None, dtype=None, **kwargs"),
        result=Result(("partitions_and", "src", 8), dtype=("attr", "dtype", "@src")),
        rules=(
            Rule("NKI501", same_partitions("dst", "src"), "dst and src must have the same partitions"),
            Rule("NKI501", Eq(Free("dst"), Lit(8)), "max8 writes 8 values per partition"),
            Rule("NKI501", All((Le(Lit(8), Free("src")), Le(Free("src"), Lit(16384)))),
                 "max8 src must have 8..16384 elements per partition"),
        ),
    ),
    Instruction(
        "nc_find_index8", "isa", "index of the first occurrence of each of 8 values per partition",
        "vector", (DST, _tile("data"), _tile("vals")),
        b2=sig("dst, data, vals, name=None"),
        b1=sig("*, data, vals, mask=None, dtype=None, **kwargs"),
        result=Result(("partitions_and", "data", 8), dtype=("attr", "dtype", "uint32")),
        rules=(
            Rule("NKI501", Eq(Free("dst"), Lit(8)), "nc_find_index8 writes 8 indices per partition"),
            Rule("NKI501", Eq(Free("vals"), Lit(8)), "vals must hold 8 values per partition"),
            Rule("NKI502", DtypeIn("dst", frozenset({"uint16", "uint32"})), "dst must be uint16 or uint32"),
        ),
    ),
    Instruction(
        "nc_match_replace8", "isa", "replace the first occurrence of each of 8 values per partition by imm",
        "vector", (DST, _tile("data"), _tile("vals"), _tile("dst_idx", W)),
        b2=sig("dst, data, vals, imm, dst_idx=None, name=None"),
        b1=sig("*, data, vals, imm, dst_idx=None, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data") + (
            Rule("NKI501", Eq(Free("vals"), Lit(8)), "vals must hold 8 values per partition"),
        ),
    ),
    Instruction(
        "sequence_bounds", "isa", "segment start/end indices for a (1, N) segment-id row",
        "gpsimd", (Operand("dst", W, SBUF_ONLY), Operand("segment_ids", R, SBUF_ONLY)),
        b2=sig("dst, segment_ids, name=None"),
        b1=sig("*, segment_ids, dtype=None"),
        result=Result(("bounds", "segment_ids"), dtype=("attr", "dtype", "@segment_ids")),
        rules=(Rule("NKI501", Eq(Dim("segment_ids", 0), Lit(1)), "segment_ids must have a single partition"),),
    ),
    Instruction(
        "dropout", "isa", "zero elements of data with probability prob",
        "vector", (DST, _tile("data"), _tile("prob", scalar_ok=True)),
        b2=sig("dst, data, prob, name=None"),
        b1=sig("data, prob, *, mask=None, dtype=None, **kwargs"),
        result=Result(("like", "data"), dtype=("attr", "dtype", "@data")),
        rules=_eltwise_rules("dst", "data") + (
            Rule("NKI502", DtypeEq("dst", "data"), "dst.dtype must equal data.dtype"),),
    ),
    Instruction(
        "rng", "isa", "random bits into an integer tile",
        "vector|gpsimd", (DST,),
        b2=sig("dst, engine=engine.vector, name=None"),
        rules=(Rule("NKI502", DtypeIn("dst", frozenset({"int8", "int16", "int32", "uint8", "uint16", "uint32"})),
                    "rng needs an integer dst"),),
    ),
    Instruction(
        "rand2", "isa", "uniform random values in [min, max] (trn3)", "vector",
        (DST, _tile("min", scalar_ok=True), _tile("max", scalar_ok=True)),
        b2=sig("dst, min, max, name=None"),
        rules=(Rule("NKI503", TargetIn(TRN3_ONLY), "rand2 needs trn3"),),
        targets=TRN3_ONLY,
    ),
    Instruction(
        "set_rng_seed", "isa", "seed the Vector Engine PRNG from a [1, 1] tile", "vector", (_tile("src_seeds"),),
        b2=sig("src_seeds, name=None"),
    ),
    Instruction(
        "rand_set_state", "isa", "set the per-lane PRNG state", "gpsimd|vector", (Operand("src_seeds", R, SBUF_ONLY),),
        b2=sig("src_seeds, engine=engine.gpsimd, name=None"),
        rules=(Rule("NKI503", TargetIn(TRN2_UP), "rand_set_state needs trn2 or trn3"),),
        targets=TRN2_UP,
    ),
    Instruction(
        "rand_get_state", "isa", "read the per-lane PRNG state", "gpsimd|vector", (_tile("dst", W),),
        b2=sig("dst, engine=engine.gpsimd, name=None"),
        rules=(Rule("NKI503", TargetIn(TRN2_UP), "rand_get_state needs trn2 or trn3"),),
        targets=TRN2_UP,
    ),
    Instruction(
        "quantize_mx", "isa", "quantize fp16/bf16 to an MX x4 dtype with scales (trn3)",
        "vector", (Operand("dst", W, SBUF_ONLY), Operand("src", R, SBUF_ONLY), Operand("dst_scale", W, SBUF_ONLY)),
        b2=sig("dst, src, dst_scale, name=None"),
        rules=(
            Rule("NKI503", TargetIn(TRN3_ONLY), "quantize_mx needs trn3"),
            Rule("NKI501", same_partitions("dst", "src"), "dst and src must have the same partitions"),
            Rule("NKI501", Eq(Times(Free("dst"), Lit(4)), Free("src")), "src free size must be 4x dst's"),
            Rule("NKI502", DtypeIn("src", frozenset({"float16", "bfloat16"})), "src must be fp16 or bf16"),
            Rule("NKI502", DtypeIn("dst", frozenset({"float8_e5m2_x4", "float8_e4m3fn_x4"})),
                 "dst must be float8_e5m2_x4 or float8_e4m3fn_x4"),
            Rule("NKI502", DtypeIn("dst_scale", frozenset({"uint8"})), "dst_scale must be uint8"),
            Rule("NKI501", MultipleOf(Dim("src", 0), 32), "src partitions must be a multiple of 32"),
        ),
        targets=TRN3_ONLY,
    ),
    Instruction(
        "nonzero_with_count", "isa", "indices of non-zero elements followed by their count (GpSimd)",
        "gpsimd", (Operand("dst", W, SBUF_ONLY, partial=True), Operand("src", R, SBUF_ONLY, partial=True)),
        b2=sig("dst, src, index_offset=0, padding_val=-1, name=None"),
        rules=(
            Rule("NKI503", TargetIn(TRN2_UP), "nonzero_with_count needs trn2 or trn3"),
            Rule("NKI502", DtypeIn("dst", frozenset({"int32"})), "dst must be int32"),
        ),
        targets=TRN2_UP,
    ),
    Instruction(
        "topk", "isa", "top-K values and indices (GpSimd)",
        "gpsimd", (Operand("val_dst", W, SBUF_ONLY), Operand("idx_dst", W, SBUF_ONLY), Operand("src", R, SBUF_ONLY)),
        b2=sig("val_dst, idx_dst, src, n, name=None"),
        rules=(Rule("NKI502", DtypeIn("idx_dst", frozenset({"uint32"})), "idx_dst must be uint32"),),
    ),
    # ------------------------------------------------------------------ registers
    Instruction(
        "register_alloc", "isa", "allocate a 32-bit engine register", "control", (),
        b2=sig("x=None"), kind="register",
    ),
    Instruction(
        "register_move", "isa", "register <- immediate or register", "control", (),
        b2=sig("dst, src"), kind="register",
    ),
    Instruction(
        "register_load", "isa", "register <- one element of an HBM/SBUF tensor", "control",
        (Operand("src", R, HBM_OR_SBUF),),
        b2=sig("dst, src"),
        rules=(Rule("NKI501", Eq(Numel("src"), Lit(1)), "register_load reads a single-element tensor"),),
        kind="register",
    ),
    Instruction(
        "register_store", "isa", "one element of an HBM/SBUF tensor <- register", "control",
        (Operand("dst", W, HBM_OR_SBUF),),
        b2=sig("dst, src"),
        rules=(Rule("NKI501", Eq(Numel("dst"), Lit(1)), "register_store writes a single-element tensor"),),
        kind="register",
    ),
    # ------------------------------------------------------------------ Beta-1 only
    Instruction(
        "tensor_copy_dynamic_src", "isa", "copy with a dynamic source offset (Beta 1; removed in 0.4.0)",
        "vector", (DST, Operand("src", R, ON_CHIP)),
        b1=sig("src, *, mask=None, dtype=None, engine=engine.unknown, **kwargs"),
        result=Result(("like", "src"), dtype=("attr", "dtype", "@src")),
    ),
    Instruction(
        "tensor_copy_dynamic_dst", "isa", "copy with a dynamic destination offset (Beta 1; removed in 0.4.0)",
        "vector", (DST, Operand("src", R, ON_CHIP)),
        b1=sig("*, dst, src, mask=None, dtype=None, engine=engine.unknown, **kwargs"),
    ),
)
