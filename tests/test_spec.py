"""The ISA specification is well formed: one declaration per instruction, consistent with itself."""

from __future__ import annotations

import itertools

import pytest

from compiler import expr as E
from compiler import spec
from compiler.spec import schema as S
from nki_verify.rules import RULES

# the public nki.isa functions of NKI 0.6.0 (aws-neuron-sdk nki/api/nki/isa/__init__.py)
ISA_0_6 = """dma_copy tensor_copy memset tensor_copy_predicated nc_matmul nc_matmul_mx nc_transpose dma_transpose
tensor_tensor tensor_scalar tensor_reduce tensor_partition_reduce tensor_scalar_cumulative activation
activation_reduce activate2 iota affine_select local_gather nc_n_gather bn_stats bn_aggr tensor_tensor_scan
nc_stream_shuffle rng dropout set_rng_seed rand_set_state rand_get_state rand2 exponential reciprocal max8
sequence_bounds scalar_tensor_tensor tensor_scalar_reduce core_barrier dma_compute quantize_mx range_select
select_reduce sendrecv register_alloc register_move register_load register_store nc_find_index8
nc_match_replace8 nonzero_with_count topk""".split()


@pytest.mark.parametrize("name", ISA_0_6)
def test_every_isa_function_is_declared(name: str) -> None:
    ins = spec.lookup(f"isa.{name}")
    assert ins.b2 is not None, f"{name} has no Beta-2 signature"


def test_missing_entry_names_the_instruction() -> None:
    with pytest.raises(KeyError, match="isa.no_such_thing"):
        spec.lookup("isa.no_such_thing")


@pytest.mark.parametrize("ins", spec.all_instructions(), ids=lambda i: i.qualname)
def test_declaration_is_consistent(ins: S.Instruction) -> None:
    names = set()
    for sig in (ins.b1, ins.b2):
        if sig is not None:
            names |= {spec.param_role(ins, "beta1" if sig is ins.b1 else "beta2", n) for n in sig.names}
    for op in ins.operands:
        assert op.mode in ("r", "w", "rw")
        assert op.buffers <= S.ANY_BUFFER
        returned = ins.result is not None and op.name == ins.result.role
        assert op.name in names or returned, f"{ins.qualname}: operand {op.name} is not a parameter"
    for rule in ins.all_rules():
        assert rule.code in RULES, rule.code
        assert rule.message
        assert rule.targets <= S.ALL_TARGETS


class FakeBinding:
    def __init__(self, shapes: dict, dtypes: dict, buffers: dict, attrs: dict, target: str = "trn2") -> None:
        self.target = spec.get_target(target)
        self.shapes, self.dtypes, self.buffers, self.attrs = shapes, dtypes, buffers, attrs

    def has(self, role: str) -> bool:
        return role in self.shapes or self.attrs.get(role) is not None

    def is_tensor(self, role: str) -> bool:
        return role in self.shapes

    def shape(self, role: str):
        return self.shapes.get(role)

    def dtype(self, role: str):
        return self.dtypes.get(role)

    def buffer(self, role: str):
        return self.buffers.get(role)

    def attr(self, name: str):
        return self.attrs.get(name, S.MISSING)


def _violations(qualname: str, b: FakeBinding) -> list:
    ins = spec.lookup(qualname)
    out = []
    for rule in ins.all_rules():
        if not rule.applies(b.target.name, "beta2"):
            continue
        r = spec.evaluate(rule, b)
        if r is not None and r.key == (20, False):
            out.append(rule.code)
    return sorted(out)


def test_rules_evaluate_concretely_for_the_device() -> None:
    ok = FakeBinding({"dst": (128, 512), "stationary": (128, 128), "moving": (128, 512)},
                     {"dst": "float32", "stationary": "bfloat16", "moving": "bfloat16"},
                     {"dst": "psum", "stationary": "sbuf", "moving": "sbuf"}, {"perf_mode": "none"})
    assert _violations("isa.nc_matmul", ok) == []
    bad = FakeBinding({"dst": (128, 1024), "stationary": (128, 128), "moving": (128, 1024)},
                      {"dst": "bfloat16", "stationary": "float32", "moving": "bfloat16"},
                      {"dst": "psum", "stationary": "psum", "moving": "sbuf"}, {"perf_mode": "none",
                                                                                 "is_transpose": False})
    assert _violations("isa.nc_matmul", bad) == ["NKI202", "NKI303", "NKI502", "NKI502"]
    trn3 = FakeBinding(bad.shapes, {"dst": "float32", "stationary": "bfloat16", "moving": "bfloat16"},
                       {"dst": "psum", "stationary": "sbuf", "moving": "sbuf"}, {"perf_mode": "none"}, "trn3")
    assert _violations("isa.nc_matmul", trn3) == []


def test_mx_matmul_shape_rules_follow_the_isa_reference() -> None:
    # nki.isa.nc_matmul_mx: dst is [M, N] for stationary [K, M] and moving [K, N]; K <= 128; N <= 1024 with a
    # bfloat16 dst, 512 with a float32 one; dst float32 or bfloat16
    mx = "float8_e4m3fn_x4"
    ok = FakeBinding({"dst": (128, 1024), "stationary": (128, 128), "moving": (128, 1024),
                      "stationary_scale": (16, 128), "moving_scale": (16, 1024)},
                     {"dst": "bfloat16", "stationary": mx, "moving": mx, "stationary_scale": "uint8",
                      "moving_scale": "uint8"},
                     {"dst": "psum", "stationary": "sbuf", "moving": "sbuf", "stationary_scale": "sbuf",
                      "moving_scale": "sbuf"}, {}, "trn3")
    assert _violations("isa.nc_matmul_mx", ok) == []
    wide = FakeBinding({**ok.shapes, "dst": (128, 2048)}, ok.dtypes, ok.buffers, {}, "trn3")
    assert _violations("isa.nc_matmul_mx", wide) == ["NKI501"]
    fp32 = FakeBinding(ok.shapes, {**ok.dtypes, "dst": "float32"}, ok.buffers, {}, "trn3")
    assert _violations("isa.nc_matmul_mx", fp32) == ["NKI202"]
    tall = FakeBinding({**ok.shapes, "stationary": (256, 128), "moving": (256, 1024)}, ok.dtypes, ok.buffers, {},
                       "trn3")
    assert _violations("isa.nc_matmul_mx", tall) == ["NKI202"]


def test_a_transposing_matmul_moves_any_dtype_and_a_transpose_keeps_it() -> None:
    # nki.isa.nc_transpose: the Tensor Engine transpose is nc_matmul(is_transpose=True), whose input may be any
    # dtype and whose dst has the dtype of data
    for target in ("trn2", "trn3"):
        t = FakeBinding({"dst": (128, 64), "stationary": (64, 128), "moving": (64, 64)},
                        {"dst": "int8", "stationary": "int8", "moving": "int8"},
                        {"dst": "psum", "stationary": "sbuf", "moving": "sbuf"},
                        {"perf_mode": "none", "is_transpose": True}, target)
        assert _violations("isa.nc_matmul", t) == []
    same = FakeBinding({"dst": (128, 64), "data": (64, 128)}, {"dst": "bfloat16", "data": "bfloat16"},
                       {"dst": "psum", "data": "sbuf"}, {"engine": "tensor"})
    assert _violations("isa.nc_transpose", same) == []
    cast = FakeBinding(same.shapes, {"dst": "float32", "data": "bfloat16"}, same.buffers, same.attrs)
    assert _violations("isa.nc_transpose", cast) == ["NKI502"]


def test_reference_rules_of_element_wise_and_quantize_instructions() -> None:
    tt = FakeBinding({"dst": (128, 64), "data1": (128, 64), "data2": (128, 64)},
                     {"dst": "float32", "data1": "int32", "data2": "int32"},
                     {"dst": "sbuf", "data1": "sbuf", "data2": "psum"}, {"op": "bitwise_and", "engine": "vector"})
    assert _violations("isa.tensor_tensor", tt) == ["NKI502"]  # "the input/output data types must be integer"
    power = FakeBinding(tt.shapes, {"dst": "float32", "data1": "float32", "data2": "float32"}, tt.buffers,
                        {"op": "power", "engine": "unknown"})
    assert _violations("isa.tensor_tensor", power) == ["NKI303"]  # nl.power: no PSUM
    act = FakeBinding({"dst": (128, 64), "data": (128, 64), "scale": (128, 1)},
                      {"dst": "float32", "data": "float32", "scale": "bfloat16"},
                      {"dst": "sbuf", "data": "sbuf", "scale": "sbuf"}, {"op": "exp"})
    assert _violations("isa.activation", act) == ["NKI502"]  # "The scale parameter must have a float32 data type"
    q = FakeBinding({"dst": (48, 16), "src": (48, 64), "dst_scale": (48, 16)},
                    {"dst": "bfloat16", "src": "bfloat16", "dst_scale": "int8"},
                    {"dst": "sbuf", "src": "sbuf", "dst_scale": "sbuf"}, {}, "trn3")
    assert _violations("isa.quantize_mx", q) == ["NKI501", "NKI502", "NKI502"]


def test_tensor_reduce_reduces_trailing_free_axes_only() -> None:
    # "The reduction axes must be the last contiguous free dimension(s) of the tile, ending at the final
    # dimension. Axis 0 (partition axis) cannot be reduced."
    def reduce(shape: tuple, dst: tuple, axis) -> list:
        return _violations("isa.tensor_reduce", FakeBinding({"dst": dst, "data": shape},
                                                            {"dst": "float32", "data": "float32"},
                                                            {"dst": "sbuf", "data": "sbuf"}, {"axis": axis}))
    assert reduce((128, 4, 64), (128, 4), 2) == []
    assert reduce((128, 4, 64), (128, 1), (1, 2)) == []
    assert reduce((128, 4, 64), (128, 1), [-2, -1]) == []
    assert reduce((128, 4, 64), (128, 64), 1) == ["NKI501"]  # not the last axis
    assert reduce((128, 64), (1, 64), 0) == ["NKI501", "NKI501"]  # the partition axis (and the sizes)


def test_local_gather_sizes() -> None:
    # "num_elem_per_idx must be one of the following values: [1, 2, 4, 8, 16, 32]" and "The number of indices
    # for gather per core must be less than or equal to 4096"
    ok = FakeBinding({"dst": (16, 64), "src_buffer": (16, 256), "index": (16, 16)},
                     {"dst": "float32", "src_buffer": "float32", "index": "uint16"},
                     {"dst": "sbuf", "src_buffer": "sbuf", "index": "sbuf"},
                     {"num_elem_per_idx": 4, "num_valid_indices": None})
    assert _violations("isa.local_gather", ok) == []
    bad = FakeBinding(ok.shapes, ok.dtypes, ok.buffers, {"num_elem_per_idx": 3, "num_valid_indices": 5000})
    assert _violations("isa.local_gather", bad) == ["NKI202", "NKI202"]


def test_tensor_scalar_operators_are_both_bitwise_or_both_arithmetic() -> None:
    # "The two operators, op0 and op1, in a tensor_scalar instruction must be of the same type (both bitvec or
    # both arithmetic)"
    def ops(**attrs) -> list:
        return _violations("isa.tensor_scalar", FakeBinding({"dst": (128, 64), "data": (128, 64)},
                                                            {"dst": "int32", "data": "int32"},
                                                            {"dst": "sbuf", "data": "sbuf"}, attrs))
    assert ops(op0="bitwise_and", operand0=3, op1="multiply", operand1=128) == ["NKI502"]
    assert ops(op0="bitwise_and", operand0=3, op1="left_shift", operand1=7) == []
    assert ops(op0="bitwise_and", operand0=3, op1=None) == []
    assert ops(op0="maximum", operand0=0, op1="minimum", operand1=384) == []


def test_target_constants() -> None:
    assert spec.get_target("trn1").sbuf_bytes_per_partition == 192 * 1024
    assert spec.get_target("gen3").name == "trn2"
    assert spec.targets.tile_size(spec.get_target("trn2"))["pmax"] == 128
    assert spec.targets.tile_size(spec.get_target("trn2"))["psum_fmax"] == 512


def test_element_counts_with_a_shared_dimension_compare_the_rest() -> None:
    # `x[nl.ds(i * 128, n), :]` <- `z[0:n, :]` (z of width 1): n*F == n*1 is asked as n == 0 or F == 1, the same
    # question without the product of the symbolic n (which is what the solver gave up on in large kernels)
    n, F = E.Sym("n", 1, "input"), E.Sym("F", 2, "input")
    b = FakeBinding({"dst": (n, F), "src": (n, 1)}, {"dst": "float32", "src": "float32"},
                    {"dst": "hbm", "src": "sbuf"}, {})
    goal = S.Eq(S.Numel("dst"), S.Numel("src")).ev(b)
    assert goal == E.bor(E.eq(n, 0), E.eq(F, 1))
    # the same answers as the product at every small value, and no shared factor, no change
    for nv, fv in itertools.product(range(0, 5), range(1, 5)):
        assert E.evaluate(goal, {n: nv, F: fv}) == (nv * fv == nv * 1)
    apart = FakeBinding({"dst": (n, F), "src": (F, n, 2)}, b.dtypes, b.buffers, {})
    goal = S.Eq(S.Numel("dst"), S.Numel("src")).ev(apart)
    for nv, fv in itertools.product(range(0, 5), range(0, 5)):
        assert E.evaluate(goal, {n: nv, F: fv}) == (nv * fv == fv * nv * 2)
    other = FakeBinding({"dst": (n, 4), "src": (F, 2)}, b.dtypes, b.buffers, {})
    assert S.Eq(S.Numel("dst"), S.Numel("src")).ev(other) == E.eq(E.mul(n, 4), E.mul(F, 2))
