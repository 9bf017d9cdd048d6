"""Hardware constants per target (NeuronCore generation).

Sources: ../shared/nki-facts.md §1 (aws-neuron-sdk architecture guides,
nki.language.tile_size).  Where the docs give no number, the value used here
is derived and marked so.
"""

from __future__ import annotations

from ..record import Record


KIB = 1024


class Target(Record):
    # gen: NeuronCore version: 2 (trn1/inf2), 3 (trn2), 4 (trn3)
    # matmul_moving_fmax_fp32: nc_matmul N limit with an fp32 destination
    # matmul_moving_fmax_bf16: ... with a bf16 destination (trn3 only)
    # lnc_max: logical NeuronCore degree allowed
    _fields = ('name', 'gen', 'pmax', 'sbuf_bytes_per_partition', 'psum_bytes_per_partition', 'psum_banks',
               'psum_bank_bytes', 'gemm_stationary_fmax', 'gemm_moving_fmax', 'matmul_moving_fmax_fp32',
               'matmul_moving_fmax_bf16', 'bn_stats_fmax', 'lnc_max')
    __slots__ = _fields

    @property
    def psum_bank_fmax(self) -> int:
        return self.psum_bank_bytes // 4

    def constant(self, name: str) -> int:
        """`nl.tile_size.<name>` on this target."""
        return tile_size(self)[name]


TRN1 = Target("trn1", 2, 128, 192 * KIB, 16 * KIB, 8, 2 * KIB, 128, 512, 512, 512, 512, 1)
TRN2 = Target("trn2", 3, 128, 224 * KIB, 16 * KIB, 8, 2 * KIB, 128, 512, 512, 512, 512, 2)
# trn3 SBUF per partition is derived (32 MiB / 128); the nki-library allocator example agrees (262144).
TRN3 = Target("trn3", 4, 128, 256 * KIB, 16 * KIB, 8, 2 * KIB, 128, 512, 4096, 8192, 512, 2)

TARGETS = {"trn1": TRN1, "trn2": TRN2, "trn3": TRN3}
ALIASES = {"inf2": "trn1", "trn1n": "trn1", "gen2": "trn1", "gen3": "trn2", "gen4": "trn3"}
DEFAULT_TARGET = "trn2"


def get_target(name: str) -> Target:
    key = ALIASES.get(name, name)
    if key not in TARGETS:
        raise KeyError(f"unknown target {name!r} (expected one of: {', '.join(TARGETS)})")
    return TARGETS[key]


def tile_size(t: Target) -> dict:
    """The `nl.tile_size` namespace (values per target)."""
    sbuf = t.sbuf_bytes_per_partition
    return {
        "pmax": t.pmax,
        "psum_fmax": t.psum_bank_fmax,
        "psum_bank_fmax": t.psum_bank_fmax,
        "psum_bank_fmax_bytes": t.psum_bank_bytes,
        "psum_num_banks": t.psum_banks,
        "gemm_stationary_fmax": t.gemm_stationary_fmax,
        "gemm_moving_fmax": t.gemm_moving_fmax,
        "bn_stats_fmax": t.bn_stats_fmax,
        # not documented numerically: per-partition usable SBUF (bytes / fp32 elements)
        "sbuf_fmax_bytes": sbuf,
        "sbuf_fmax": sbuf // 4,
        "total_available_sbuf_size": sbuf,
        "sbuf_size_bytes": sbuf * t.pmax,
        "psum_min_align": 4,
        "sbuf_min_align": 4,
    }
