"""`nki.collectives`: communication between ranks (NKI 0.3.0+).

Source: aws-neuron-sdk nki/api/nki/collectives/__init__.py (NKI 0.6.0 docstrings).  Each collective reads
its source tensors and writes its destination tensors (lists, or lists of lists per channel); tensors are
in HBM or SBUF.  What other ranks send is not modelled: a destination is written with unknown data.
"""

from __future__ import annotations

from .schema import HBM_OR_SBUF, TRN2_UP, Instruction, Operand, Rule, TargetIn, sig

R, W = "r", "w"


def _coll(name: str, summary: str, signature: str, srcs: tuple = ("srcs",), dsts: tuple = ("dsts",),
          extra: tuple = ()) -> Instruction:
    operands = tuple(Operand(s, R, HBM_OR_SBUF, is_list=True) for s in srcs) + \
        tuple(Operand(d, W, HBM_OR_SBUF, is_list=True) for d in dsts) + extra
    return Instruction(name, "collectives", summary, "dma", operands, b2=sig(signature),
                       rules=(Rule("NKI503", TargetIn(TRN2_UP), f"collectives.{name} needs trn2 or trn3"),),
                       kind="dma")


INSTRUCTIONS = (
    _coll("all_reduce", "reduce srcs across the ranks of a replica group into dsts",
          "srcs, dsts, replica_group, op, priority=None, name=None"),
    _coll("all_gather", "gather srcs of every rank into dsts along collective_dim",
          "srcs, dsts, replica_group, collective_dim, priority=None, name=None"),
    _coll("all_gather_v", "variable-length all-gather described by a metadata tensor",
          "srcs, dsts, replica_group, metadata_tensor, recv_counts_known=False, has_rdispls=False, priority=None, "
          "name=None", extra=(Operand("metadata_tensor", R, HBM_OR_SBUF),)),
    _coll("reduce_scatter", "reduce srcs across ranks and scatter the result along collective_dim",
          "srcs, dsts, replica_group, collective_dim, op, priority=None, name=None"),
    _coll("all_to_all", "exchange slices of srcs between all ranks",
          "srcs, dsts, replica_group, collective_dim, priority=None, name=None"),
    _coll("all_to_all_v", "variable-length all-to-all described by a metadata tensor",
          "srcs, dsts, replica_group, metadata_tensor, recv_counts_known=False, has_rdispls=False, priority=None, "
          "name=None", extra=(Operand("metadata_tensor", R, HBM_OR_SBUF),)),
    _coll("collective_permute", "send srcs to the target of each (source, target) rank pair",
          "srcs, dsts, source_target_pairs, priority=None, name=None"),
    _coll("collective_permute_implicit", "ring step: send to the successor, receive from the predecessor",
          "srcs_by_channel, dsts_by_channel, replica_group, channel_ids=[0], priority=None, name=None",
          srcs=("srcs_by_channel",), dsts=("dsts_by_channel",)),
    _coll("collective_permute_implicit_reduce", "ring step that reduces what it receives with a second source",
          "srcs0_by_channel, srcs1_by_channel, dsts_by_channel, replica_group, op, channel_ids=[0], priority=None, "
          "name=None", srcs=("srcs0_by_channel", "srcs1_by_channel"), dsts=("dsts_by_channel",)),
)
