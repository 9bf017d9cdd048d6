"""A device run: program instances, their memories, allocation, and the bookkeeping every access goes
through (shadow memory, input writes, loop and SPMD access logs, liveness for capacity).
"""

from __future__ import annotations

import math
import random
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compiler.spec.targets import Target

from . import dtypes as DT
from .faults import DeviceFault, FaultLog, Site, user_site
from .hazards import Access, AccessLog, Live, overflows, primary_site
from .memory import ArenaPool, OnChipMemory
from .tensor import ON_CHIP, Storage, View, layout, shadow_dtype


@dataclass(frozen=True)
class RunOptions:
    target: Target
    mode: str = "raise"  # raise | collect
    shuffle: int | None = None  # seed: run affine iterations and program instances in a shuffled order
    hazards: bool = True  # shadow memory, loop and SPMD access logs


class Run:
    """State shared by every launch of one `device.run` call."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.target = options.target
        self.faults = FaultLog(options.mode)
        self.clock = 0
        self._sids = 0
        self._sites: dict = {}
        self.pending: list = []  # NKI403 candidates decided at the end (they depend on later uses)
        self.rng = random.Random(options.shuffle) if options.shuffle is not None else None
        self.stats = {"instructions": 0}
        self.rule_cache: dict = {}
        self.launches: list = []
        self.modules: Any = None  # the fake nki modules of this run (device.modules.ModuleSet)
        self.arenas = ArenaPool()
        self.mutable: set = set()  # storage ids of inputs annotated nt.mutable_tensor (written in place: no NKI304)

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def new_sid(self) -> int:
        self._sids += 1
        return self._sids

    def site_seq(self, site: Site) -> int:
        """Program order of a site, approximated by the order in which sites first execute."""
        key = (site.path, site.line)
        seq = self._sites.get(key)
        if seq is None:
            seq = self._sites[key] = len(self._sites)
        return seq

    def shuffled(self, items: list) -> list:
        if self.rng is None:
            return items
        items = list(items)
        self.rng.shuffle(items)
        return items


@dataclass
class LoopScope:
    """One executing loop instance.  Affine loops log their accesses to find cross-iteration conflicts."""

    kind: str  # affine | sequential | dynamic
    site: Site
    start_time: int
    log: AccessLog | None = None
    iteration: int = 0
    end_time: int | None = None
    trips: int = 0
    # NKI403: per storage [who of the last first-access seen, every iteration began with a full overwrite]
    reuse: dict = field(default_factory=dict)


class Program:
    """One program instance (an SPMD grid point, or one core of an LNC2 launch)."""

    def __init__(self, launch: Any, index: int, pid: tuple) -> None:
        self.launch = launch
        self.run: Run = launch.run
        self.index = index
        self.pid = pid
        self.dialect = launch.dialect
        self._sbuf: OnChipMemory | None = None
        self._psum: OnChipMemory | None = None
        self.loops: list = []
        self.onchip: list = []  # storages for the capacity sweep at the end
        self.vector_acc: np.ndarray | None = None  # Vector Engine accumulator registers (per partition)
        self.scalar_acc: np.ndarray | None = None  # Scalar Engine accumulators (activation reductions)
        self.rng = np.random.default_rng(index)
        self.shared_seen: dict = {}  # (site, occurrence) counters for shared_hbm allocations
        self.deferred_oob = None  # dynamic out-of-bounds findings waiting for their view (device.nkitensor)
        self.site: Site | None = None  # the kernel line of the instruction being executed (its accesses' site)
        self.reductions: dict = {}  # storage id of an nl.loop_reduce result -> its operator

    def language(self, name: str) -> Any:
        """The dialect's nl.<name> (tile operators of Beta 1, assignments into views)."""
        if name == "__assign__":
            return self.launch.ns.assign()
        return getattr(self.launch.ns.language, name)

    # ------------------------------------------------------------------ faults
    def fault(self, code: str, message: str, values: tuple = (), site: Site | None = None) -> None:
        prog = self.pid if self.launch.size > 1 else None
        self.run.faults.report(DeviceFault(code, message, site or user_site(2), values, prog))

    # ------------------------------------------------------------------ memory
    def memory(self, buffer: str) -> OnChipMemory:
        if buffer == "sbuf":
            if self._sbuf is None:
                self._sbuf = self.run.arenas.take("sbuf", self.run.target)
            return self._sbuf
        if self._psum is None:
            self._psum = self.run.arenas.take("psum", self.run.target)
        return self._psum

    def release(self) -> None:
        """Give the program's on-chip memories back (its tiles are dead once it has finished)."""
        for mem in (self._sbuf, self._psum):
            if mem is not None:
                self.run.arenas.give(mem, self.run.target)
        self._sbuf = self._psum = None

    def allocate(self, name: str, buffer: str, dname: str, shape: tuple, par_dim: int = 0, kind: str = "ndarray",
                 address: Any = None, site: Site | None = None, fill: bool = True) -> Storage:
        site = site or user_site(2)
        shape = tuple(int(d) for d in shape)
        rows, cols = layout(shape, buffer, par_dim)
        np_dtype = DT.storage_dtype(dname)
        isz = np_dtype.itemsize
        data = shadow = None
        placement = None
        if buffer in ON_CHIP:
            data, shadow, placement = self._place(name, buffer, shape, par_dim, rows, cols, isz, np_dtype, address,
                                                  site)
        if data is None:
            data = np.empty((rows, cols), dtype=np_dtype)
            # HBM cannot be aliased by placement: one shadow byte per element is enough
            shadow = np.zeros((rows, cols), dtype=shadow_dtype(isz) if buffer in ON_CHIP else np.uint8)
        owner = None if buffer == "shared_hbm" or kind == "param" else self
        st = Storage(self.run.new_sid(), name, buffer, dname, shape, par_dim, data, shadow, kind, site, owner)
        if placement is not None:
            pl, token, mem = placement
            st.placement, st.token, st.memory = pl, token, mem
            weakref.finalize(st, mem.free, token)
            st.exact = pl.manual  # placed bytes may be shared with other placements
            if pl.manual:
                st.tags, st.tag = mem.tags(pl, isz, st)
            st.fresh = not pl.manual  # a reused auto region: its shadow is cleared when first partly written
        if fill and buffer in ON_CHIP and placement is None:
            data[...] = DT.nan_fill(dname)  # private backing: as NKI's simulator, unwritten data reads as NaN (or 4)
        st.alloc_time = self.run.tick()
        st.last_use = st.alloc_time
        if buffer in ON_CHIP:
            self.onchip.append(st.life)
        return st

    def wrap(self, name: str, buffer: str, arr: np.ndarray, site: Site) -> Storage:
        """A kernel input: the host array itself when its layout allows (no copy; like NKI's simulator, a
        kernel that writes its input updates the host array), written everywhere."""
        dname = DT.dtype_name(arr.dtype)
        rows, cols = layout(arr.shape, buffer, 0)
        if arr.flags.c_contiguous and arr.flags.writeable and arr.dtype == DT.storage_dtype(dname):
            data = arr.reshape(rows, cols)
        else:
            data = np.array(arr, dtype=DT.storage_dtype(dname), order="C").reshape(rows, cols)
        st = Storage(self.run.new_sid(), name, buffer, dname, arr.shape, 0, data, None, "param", site, None)
        st.alloc_time = self.run.tick()
        st.last_use = st.alloc_time
        return st

    def _place(self, name: str, buffer: str, shape: tuple, par_dim: int, rows: int, cols: int, isz: int,
               np_dtype: np.dtype, address: Any, site: Site) -> tuple:
        target = self.run.target
        parts = shape[par_dim] if shape else 1
        nbytes = cols * isz
        mem = self.memory(buffer)
        if parts > target.pmax:
            self.fault("NKI201", f"'{name}' spans {parts} partitions of {buffer.upper()}; the partition dimension "
                       f"(axis {par_dim}) is limited to {target.pmax}", (("partitions", parts),), site)
            if address is not None:  # the placement's own checks still apply
                self._manual(name, buffer, mem, parts, nbytes, np_dtype, isz, address, site, rows, par_dim)
            return None, None, None
        if address is not None:
            return self._manual(name, buffer, mem, parts, nbytes, np_dtype, isz, address, site, rows, par_dim)
        if par_dim:
            return None, None, None  # Beta-1 block dimensions: the compiler rotates blocks; private backing
        got = mem.auto(parts, nbytes)
        if got is None:
            return None, None, None
        pl, token = got
        data, shadow = mem.mem.typed(0, parts, pl.byte, nbytes, np_dtype, shadow_dtype(isz))
        return data, shadow, (pl, token, mem)

    def _manual(self, name: str, buffer: str, mem: OnChipMemory, parts: int, nbytes: int, np_dtype: np.dtype,
                isz: int, address: Any, site: Site, rows: int, par_dim: int) -> tuple:
        target = self.run.target
        part, off = (int(address[0]), int(address[1])) if len(address) >= 2 else (0, int(address[0]))
        if buffer == "psum" and off % target.psum_bank_bytes:
            self.fault("NKI301", f"PSUM tensor '{name}' is placed at byte offset {off}, which is not the start of "
                       f"a 2 KiB bank (use bank_id * 2048)", (("offset", off),), site)
        if not mem.fits(part, off, parts, nbytes):
            cap = mem.capacity
            self.fault("NKI204", f"'{name}' is placed at partitions [{part}, {part + parts}) and bytes [{off}, "
                       f"{off + nbytes}) of each partition, outside the {target.pmax} partitions x {cap} bytes of "
                       f"{buffer.upper()} on {target.name}",
                       (("end byte", off + nbytes), ("end partition", part + parts)), site)
            return None, None, None
        if par_dim or rows != parts or parts > target.pmax:
            return None, None, None
        pl, token = mem.place(part, off, parts, nbytes)
        data, shadow = mem.mem.typed(part, parts, off, nbytes, np_dtype, shadow_dtype(isz))
        return data, shadow, (pl, token, mem)

    # ------------------------------------------------------------------ accesses
    def touch(self, st: Storage) -> int:
        now = self.run.clock
        life = st.life
        if life.first_use is None:
            life.first_use = now
        life.last_use = now
        if st.on_chip:
            sites = frozenset(sc.site for sc in self.loops)
            life.inside = sites if life.inside is None else life.inside & sites
        return now

    def on_read(self, view: View, mask: np.ndarray | None = None, acc: bool = False, check: bool = True,
                as_src: bool = False) -> None:
        """Bookkeeping of a read: unwritten memory (NKI404), input reads (NKI304), access logs."""
        st = view.storage
        self.touch(st)
        if as_src:
            st.uses_as_src += 1
        else:
            st.other_uses += 1
        if st.kind == "param":
            st.read_yet = True
        if not self.run.options.hazards:
            return
        if check and not view.oob:
            ok = view.written(mask)
            if ok is not True:
                from .hazards import first_unwritten
                idx = first_unwritten(ok, view.shape)
                self.fault("NKI404", f"reads '{st.name}' where nothing has written it (uninitialised memory)",
                           (("tensor", st.name), ("element", idx)))
        if st.tags is not None and not view.oob:
            self._lost_value(view, mask)
        self._log(view, mask, acc, False, None)

    def _lost_value(self, view: View, mask: np.ndarray | None) -> None:
        """NKI302 by value: a placed tile reads elements whose bytes another placed tile wrote since (their
        placements overlap while a value of the first is still to be read)."""
        st = view.storage
        tags = view.read(st.tags, mask)
        lost = (tags != st.tag) & (tags != 0)
        keep = view._keep(mask)
        if keep is not None:
            lost &= np.broadcast_to(keep, lost.shape)
        if not lost.any():
            return
        idx = tuple(int(i) for i in np.argwhere(lost)[0])
        other = st.memory.tagged.get(int(tags[idx]) & 0xFFFF)
        if other is None:
            return
        first, second = (st, other) if st.sid < other.sid else (other, st)
        self.fault("NKI302", f"'{first.name}' and '{second.name}' are both live and their manual placements overlap "
                   f"(partitions x bytes): '{other.name}' overwrote what '{st.name}' reads here",
                   (("tensor", st.name), ("element", idx), ("overwritten by", other.name)), first.site)

    def on_write(self, view: View, values: Any, mask: np.ndarray | None = None, acc: bool = False) -> None:
        """Bookkeeping of a write (before it happens: the SPMD log compares old and new values)."""
        st = view.storage
        self.touch(st)
        if st.kind == "param":
            st.written = True
        # in/out parameters: unsupported in Beta 1 (seed "getting started"); current NKI writes inputs in place
        if st.kind == "param" and st.read_yet and self.dialect == "beta1" and st.sid not in self.run.mutable:
            self.fault("NKI304", f"this kernel writes its input '{st.name}', which it also reads: in/out parameters "
                       f"are not supported; write a new output tensor and return it", (("tensor", st.name),))
        if self.run.options.hazards:
            self._log(view, mask, acc, True, values)

    def store(self, view: View, values: Any, mask: np.ndarray | None = None, acc: bool = False) -> None:
        """Write already-cast values into a view, with its bookkeeping."""
        self.on_write(view, values, mask, acc)
        view.write(view.storage.data, values, mask)
        self.written(view, mask)

    def written(self, view: View, mask: np.ndarray | None) -> None:
        st = view.storage
        if st.tags is not None and not view.oob:
            view.write(st.tags, st.tag, mask)
        if st.all_written and not st.exact:
            return
        if mask is None and not st.all_written and view.covers_storage():
            st.all_written = True  # monotonic: later reads of this storage need no shadow check
            if not st.exact:
                st.fresh = False
                return
        if st.unmarked is not None and mask is None and view.grid is None and not view.oob:
            st.unmarked.append(view.region())
            return
        view.mark_written(mask)

    def compute_into(self, view: View, fn: Any, acc: bool = False) -> bool:
        """Let `fn(out)` write float32 results straight into the view (no temporary, no copy) when the view
        is a plain strided float32 view of private memory; False when the caller must compute and `store`."""
        st = view.storage
        if st.dname != "float32" or st.owner is None:
            return False
        out = view._base_view(st.data)
        if out is None:
            return False
        self.on_write(view, None, None, acc)
        fn(out)
        self.written(view, None)
        return True

    def load(self, view: View, mask: np.ndarray | None = None, acc: bool = False, as_src: bool = False,
             check: bool = True) -> np.ndarray:
        self.on_read(view, mask, acc, check=check, as_src=as_src)
        return view.values(mask)

    def _log(self, view: View, mask: Any, acc: bool, write: bool, values: Any) -> None:
        st = view.storage
        scopes = [sc for sc in self.loops if sc.log is not None and sc.start_time > st.alloc_time]
        race = self.launch.race_log if self.launch.size > 1 and st.owner is None else None
        if not scopes and race is None:
            return
        region = view.region(mask)
        if region.empty():
            return
        site = self.site or user_site(3)
        seq = self.run.site_seq(site)
        for sc in scopes:
            self._loop_access(sc, view, Access(sc.iteration, seq, site, acc, write, region), write)
        if race is not None:
            a = Access(self.index, seq, site, acc, write, region)
            for c in race.check(st.sid, st.cols, a):
                if not (write and c.other.write and _same_values(view, values, mask)):
                    self._race(st, a, c)

    def _loop_access(self, sc: LoopScope, view: View, a: Access, write: bool) -> None:
        st = view.storage
        rec = sc.reuse.get(st.sid)
        if rec is None or rec[0] != a.who:
            # "directly in the loop's body": loops of a single iteration do not count (the verifier's front end
            # does not keep them either)
            innermost = next((x for x in reversed(self.loops) if x.trips != 1), None)
            whole = write and view.covers_storage() and innermost is sc
            if rec is None:
                rec = sc.reuse[st.sid] = [a.who, whole and st.on_chip and sc.site in (st.life.inside or ())]
            rec[0] = a.who
            rec[1] = rec[1] and whole
        for c in sc.log.check(st.sid, st.cols, a):
            values = (("iteration", c.other.who), ("other iteration", a.who), ("element", _coords(st, c.element)))
            if rec[1]:
                self.run.pending.append(_Pending(self, sc, st, rec, primary_site(c.other, a), values))
            else:
                self._dependency(st, primary_site(c.other, a), values)

    def _dependency(self, st: Storage, site: Site, values: tuple) -> None:
        kind = ("an affine_range loop promises independent iterations" if self.dialect == "beta1" else
                "in NKI Beta 2 affine_range is an alias of range, but its name claims iterations are independent")
        self.fault("NKI401", f"'{st.name}' is accessed by two different iterations of an affine_range loop, one of "
                   f"them writing: a loop-carried dependency ({kind})", values, site)

    def _race(self, st: Storage, a: Access, c: Any) -> None:
        other = self.launch.programs[c.other.who].pid
        what = "write" if c.other.write and a.write else "write and read"
        self.fault("NKI402", f"two program instances {what} the same element of '{st.name}' with no core_barrier "
                   f"between them (an SPMD race)",
                   (("program", other), ("other program", self.pid), ("element", _coords(st, c.element))),
                   primary_site(c.other, a))

    # ------------------------------------------------------------------ end of the program
    def finish(self) -> None:
        """Capacity (NKI204), by liveness: checked when the program's lifetimes are all known (overlapping
        manual placements, NKI302, are caught when a read finds its bytes rewritten: `_lost_value`)."""
        target = self.run.target
        for buffer in ("sbuf", "psum"):
            lives = []
            for life in self.onchip:
                if life.buffer != buffer or _assigned_result(life):
                    continue
                nbytes = life.block_bytes
                amount = -(-nbytes // target.psum_bank_bytes) if buffer == "psum" else nbytes
                lives.append(Live(life.alloc_time, life.last_use, amount, life.site, life.name))
            limit = target.psum_banks if buffer == "psum" else target.sbuf_bytes_per_partition
            for live, total, names in overflows(lives, limit):
                unit = "PSUM banks" if buffer == "psum" else "bytes per partition of SBUF"
                self.fault("NKI204", f"{total} {unit} are live here, more than the {limit} of {target.name} "
                           f"(live: {', '.join(names[:6])})", (("live", total), ("limit", limit)), live.site)
        self.onchip = []


def _assigned_result(st: Any) -> bool:
    """A result tile only ever assigned into a view (`t[j] = nl.load(x)`): the instruction writes straight into
    that view, so the tile takes no memory of its own (the verifier's model)."""
    return st.kind == "result" and st.uses_as_src > 0 and st.other_uses == 0


def _same_values(view: View, values: Any, mask: Any) -> bool:
    """Both program instances write the same bytes (zero-initialising a shared output): benign."""
    if values is None:
        return False
    old = view.values(mask)
    new = np.broadcast_to(np.asarray(values, dtype=old.dtype), old.shape)
    if mask is not None:
        m = np.broadcast_to(mask, old.shape)
        old, new = old[m], new[m]
    u = DT.storage_dtype("uint8") if old.dtype.itemsize == 1 else None
    if u is None:
        return bool(np.array_equal(old, new, equal_nan=old.dtype.kind == "f"))
    return bool(np.array_equal(old.view(u), new.view(u)))


def _coords(st: Storage, flat: int) -> tuple:
    n = math.prod(st.shape)
    if not st.shape or flat >= n:
        return (flat,)
    return tuple(int(x) for x in np.unravel_index(flat, st.shape))


@dataclass
class _Pending:
    """A cross-iteration conflict on a buffer that every iteration overwrote completely first: NKI403 if the
    buffer is not used after the loop either, else NKI401 (decided when the run ends)."""

    program: Program
    scope: LoopScope
    storage: Storage
    reuse: list
    site: Site
    values: tuple

    def decide(self) -> None:
        st, sc = self.storage, self.scope
        only_inside = sc.site in (st.life.inside or ())  # the verifier's rule: no use outside the (static) loop
        if self.reuse[1] and only_inside:
            self.program.fault(
                "NKI403", f"'{st.name}' is allocated outside an affine_range loop and completely rewritten in every "
                f"iteration: the iterations serialise on it; allocate it inside the loop", (("tensor", st.name),),
                st.site)
        else:
            self.program._dependency(st, self.site, self.values)
