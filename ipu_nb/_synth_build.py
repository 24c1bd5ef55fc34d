"""Turn a schedule of commands into the samples the runtime writes, as `Columns` (all numpy, no per-sample Python).

Timing model (PROFILES.md): per exchange phase k every tile syncs from the end of its
previous compute until the supervisor sync returns (≈600 cycles after the slowest tile,
plus a few cycles of per-tile skew), then exchanges until one common device time (the
largest per-tile payload at 4 bytes/cycle), then computes (busy tiles) or records an
idle sample lasting only the sampling overhead. Each tile's counter is the device time
plus a per-tile skew plus a base chosen so the 32-bit counters wrap mid-profile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._load._columns import STEP_KINDS, Columns
from ._synth_plan import Command, Fmt, Transfers
from ._synth_vocab import Vocab

__all__ = ["CLOCK_HZ", "Timeline", "build_columns", "c600_physical_tiles", "timeline"]

CLOCK_HZ = 1_500_000_000
EXCHANGE, COMPUTE, SYNC, IDLE = (STEP_KINDS.index(k) for k in ("exchange", "compute", "synchronization", "idle"))
_WRAP = 1 << 32


def c600_physical_tiles(count: int) -> np.ndarray:
    """Physical tile ids of logical tiles 0..count-1 on a C600 (PROFILES.md: 0,1,2,3 → 0,2,64,66; 1471 → 63)."""
    logical = np.arange(count, dtype=np.int64)
    pair, lane = logical // 2, logical % 2
    block, row = pair // 23, pair % 23
    row = np.where(block % 2 == 1, 22 - row, row)
    column = (block // 2) * 4 + (block % 2)
    return (row * 64 + column + 2 * lane).astype(np.uint32)


@dataclass
class Timeline:
    """Device-time boundaries of every (phase k, tile t) and the raw-counter mapping."""

    sync_start: np.ndarray  # int64 [K, T]
    sync_end: np.ndarray  # int64 [K, T]
    exchange_end: np.ndarray  # int64 [K], common to all tiles
    compute: np.ndarray  # int64 [K, T] compute / idle cycles
    transfer_start: np.ndarray  # int64 [K], when data starts to move
    send_cycles: list[np.ndarray]  # per k: int64 [T]
    receive_cycles: list[np.ndarray]
    skew: np.ndarray  # int64 [T]
    base: int

    @property
    def span(self) -> int:
        return int((self.exchange_end[-1] + self.compute[-1]).max()) if len(self.exchange_end) else 0

    def raw(self, device: np.ndarray, tile: np.ndarray) -> np.ndarray:
        """Raw 32-bit counter readings of device times on (logical) tiles."""
        return ((self.base + self.skew[tile] + device) % _WRAP).astype(np.uint32)


def _ceil4(nbytes: np.ndarray) -> np.ndarray:
    return (np.asarray(nbytes, dtype=np.int64) + 3) // 4


def _unique_sends(tr: Transfers) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row per multicast (tensor, source): the hardware sends each tensor once, however many receive it."""
    if not len(tr):
        z = np.zeros(0, dtype=np.int64)
        return z, z, z
    order = np.lexsort((tr.tensor, tr.source))
    tensor, source, nbytes = tr.tensor[order], tr.source[order], tr.nbytes[order]
    first = np.ones(len(order), dtype=bool)
    first[1:] = (tensor[1:] != tensor[:-1]) | (source[1:] != source[:-1])
    return tensor[first], source[first], nbytes[first]


def timeline(commands: list[Command], tiles: int, rng: np.random.Generator, base_cycle: int | None) -> Timeline:
    """Lay the phases out in device time (vectorised over phases and tiles)."""
    k_count = len(commands)
    compute = rng.integers(40, 300, size=(k_count, tiles), dtype=np.int64)  # idle: sampling overhead only
    send_cycles, receive_cycles = [], []
    exchange = np.empty(k_count, dtype=np.int64)
    for k, cmd in enumerate(commands):
        compute[k, cmd.tiles] = np.maximum(1, np.rint(cmd.cycles)).astype(np.int64)
        tr = cmd.transfers
        receive = np.bincount(tr.destination, weights=_ceil4(tr.nbytes), minlength=tiles).astype(np.int64)
        _, src, nbytes = _unique_sends(tr)
        send = np.bincount(src, weights=_ceil4(nbytes), minlength=tiles).astype(np.int64)
        send_cycles.append(send)
        receive_cycles.append(receive)
        exchange[k] = max(int(receive.max(initial=0)), int(send.max(initial=0)))
    jitter = rng.integers(0, 40, size=(k_count, tiles), dtype=np.int64)  # sync-return skew between tiles
    sync_cost = 600 + rng.integers(0, 60, size=k_count)
    exchange_cost = exchange + 48 + rng.integers(0, 24, size=k_count)  # + exchange setup and sampling
    slowest = compute.max(axis=1)
    previous = np.concatenate([[0], slowest[:-1]])
    sync_return = np.cumsum(previous + sync_cost) + np.concatenate(
        [[0], np.cumsum(jitter.max(axis=1) + exchange_cost)[:-1]]
    )
    exchange_end = sync_return + jitter.max(axis=1) + exchange_cost
    sync_start = np.zeros_like(compute)
    sync_start[1:] = exchange_end[:-1, None] + compute[:-1]
    skew = rng.integers(0, 10_001, size=tiles, dtype=np.int64)
    span = int((exchange_end[-1] + compute[-1]).max()) if k_count else 0
    base = (_WRAP - span // 2 - 5_000) % _WRAP if base_cycle is None else int(base_cycle) % _WRAP
    return Timeline(
        sync_start=sync_start,
        sync_end=sync_return[:, None] + jitter,
        exchange_end=exchange_end,
        compute=compute,
        transfer_start=sync_return + jitter.max(axis=1) + 16,
        send_cycles=send_cycles,
        receive_cycles=receive_cycles,
        skew=skew,
        base=base,
    )


def _codes(vocab: Vocab, value: object, n: int) -> np.ndarray:
    """Codes of a planner / step value for n busy tiles."""
    if isinstance(value, Fmt):
        return np.broadcast_to(vocab.rows(value.fmt, *value.columns), (n,))
    if isinstance(value, str):
        return np.full(n, vocab.code(value), dtype=np.uint32)
    if isinstance(value, bool):
        return np.full(n, vocab.code("true" if value else "false"), dtype=np.uint32)
    return np.broadcast_to(vocab.ints(value, n=n), (n,))


def _scalar(value: object) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, np.integer)):
        return str(value)
    return None


class _Samples:
    """Sample columns filled by position, plus metadata / activity pieces scattered at the end."""

    def __init__(self, n: int, vocab: Vocab) -> None:
        self.vocab = vocab
        self.kind = np.zeros(n, dtype=np.uint16)
        self.phase = np.zeros(n, dtype=np.uint32)
        self.start = np.zeros(n, dtype=np.uint32)
        self.end = np.zeros(n, dtype=np.uint32)
        self.operation = np.zeros(n, dtype=np.uint32)
        self.kernel = np.full(n, vocab.code(""), dtype=np.uint32)
        self.event_cycles = np.zeros(n, dtype=np.uint32)
        self.fixed = np.zeros(n, dtype=np.int64)  # fixed metadata entries per sample
        self._blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._extras: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._activities: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def meta(self, pos: np.ndarray, names: list[str], values: list[np.ndarray]) -> None:
        """The same metadata names, in order, on every sample at `pos` (values: one code column per name)."""
        codes = self.vocab.codes(names)
        matrix = np.empty((len(pos), len(names)), dtype=np.uint32)
        for i, v in enumerate(values):
            matrix[:, i] = v
        self.fixed[pos] = len(names)
        self._blocks.append((pos, codes, matrix))

    def extra(self, pos: np.ndarray, names: np.ndarray, values: np.ndarray) -> None:
        """Entries appended after a sample's fixed metadata; rows for one sample are consecutive and in order."""
        self._extras.append((pos, names, values))

    def activities(self, pos: np.ndarray, kind: np.ndarray, start: np.ndarray, end: np.ndarray) -> None:
        """Exchange activities; rows for one sample consecutive and in order."""
        self._activities.append((pos, kind, start, end))

    def metadata(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = len(self.kind)
        extra_pos = np.concatenate([e[0] for e in self._extras]) if self._extras else np.zeros(0, dtype=np.int64)
        counts = self.fixed + np.bincount(extra_pos, minlength=n)
        offsets = np.cumsum(counts) - counts
        total = int(counts.sum())
        names = np.empty(total, dtype=np.uint32)
        values = np.empty(total, dtype=np.uint32)
        for pos, codes, matrix in self._blocks:
            idx = offsets[pos][:, None] + np.arange(len(codes))
            names[idx] = codes
            values[idx] = matrix
        for pos, n_codes, v_codes in self._extras:
            idx = offsets[pos] + self.fixed[pos] + _rank(pos)
            names[idx] = n_codes
            values[idx] = v_codes
        return counts, names, values

    def activity_columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        n = len(self.kind)
        if not self._activities:
            z = np.zeros(0, dtype=np.uint32)
            return np.zeros(n, dtype=np.int64), z.astype(np.uint16), z, z
        pos = np.concatenate([a[0] for a in self._activities])
        order = np.argsort(pos, kind="stable")
        kind, start, end = (np.concatenate([a[i] for a in self._activities])[order] for i in (1, 2, 3))
        return np.bincount(pos, minlength=n).astype(np.int64), kind.astype(np.uint16), start, end


def _rank(group: np.ndarray) -> np.ndarray:
    """0, 1, 2… within runs of equal consecutive values."""
    if not len(group):
        return np.zeros(0, dtype=np.int64)
    new = np.ones(len(group), dtype=bool)
    new[1:] = group[1:] != group[:-1]
    starts = np.flatnonzero(new)
    return np.arange(len(group)) - np.repeat(starts, np.diff(np.append(starts, len(group))))


@dataclass
class _Phase:
    """Per-command codes shared by the sync, exchange and compute samples."""

    busy: np.ndarray  # bool [T]
    keys: list[str]  # sorted planner keys
    key_codes: list[np.ndarray]  # per key, codes for the busy tiles
    common: list[tuple[str, int]]  # planner keys constant over the phase (sorted), with their value code
    label: np.ndarray


def _phase_codes(vocab: Vocab, cmd: Command, tiles: int) -> _Phase:
    n = len(cmd.tiles)
    busy = np.zeros(tiles, dtype=bool)
    busy[cmd.tiles] = True
    keys = sorted(cmd.planner)
    codes = [_codes(vocab, cmd.planner[k], n) for k in keys]
    common = [(k, vocab.code(s)) for k in keys if (s := _scalar(cmd.planner[k])) is not None]
    return _Phase(busy, keys, codes, common, _codes(vocab, cmd.planner["label"], n))


def build_columns(
    commands: list[Command],
    *,
    tiles: int,
    granularity: str,
    schema_version: int,
    rng: np.random.Generator,
    base_cycle: int | None,
    progress: Callable[[int, int], None] | None = None,
) -> Columns:
    """All samples of `commands` at `granularity`, in the runtime's file order (`progress(done, total)` per phase)."""
    tl = timeline(commands, tiles, rng, base_cycle)
    physical = c600_physical_tiles(tiles)
    vocab = Vocab()
    if granularity in ("graph", "region"):
        s, counts = _coarse(commands, tl, tiles, granularity, vocab)
        if progress is not None:
            progress(1, 1)
    else:
        s, counts = _fine(commands, tl, tiles, granularity == "step", schema_version, physical, vocab, progress)
    meta_counts, names, values = s.metadata()
    act_counts, act_kind, act_start, act_end = s.activity_columns()
    n = len(s.kind)
    tile_first = np.cumsum(counts) - counts
    local = np.arange(n, dtype=np.int64) - np.repeat(tile_first, counts)
    return Columns(
        schema_version=schema_version,
        clock_hz=CLOCK_HZ,
        tiles=physical,
        tile_sample_counts=counts.astype(np.int64),
        local_index=local.astype(np.uint32),
        phase=s.phase,
        epoch=np.zeros(n, dtype=np.uint32),
        kind=s.kind,
        start=s.start,
        end=s.end,
        operation=_compact(vocab, s.operation),
        kernel=_compact(vocab, s.kernel),
        metadata_counts=meta_counts,
        metadata_name=_compact(vocab, names),
        metadata_value=_compact(vocab, values),
        exchange_event_cycles=s.event_cycles if schema_version >= 4 else np.zeros(n, dtype=np.uint32),
        activity_counts=act_counts,
        activity_kind=act_kind,
        activity_start=act_start,
        activity_end=act_end,
    )


def _compact(vocab: Vocab, codes: np.ndarray):
    """A `Strings` column whose dictionary holds only the strings this column uses (first-use order kept)."""
    from ._load._columns import Strings

    used = np.zeros(len(vocab), dtype=bool)
    used[codes] = True
    keep = np.flatnonzero(used)
    remap = np.cumsum(used, dtype=np.int64) - 1
    return Strings(remap[codes].astype(np.uint32), vocab.arrow().take(keep))


def _coarse(commands: list[Command], tl: Timeline, tiles: int, granularity: str, vocab: Vocab):
    """graph: one `graph` sample per tile; region: one sample per region per tile, contiguous."""
    k_count = len(commands)
    compute_end = tl.exchange_end[:, None] + tl.compute  # [K, T]
    if granularity == "graph":
        groups = [(0, k_count, "graph")]
    else:
        groups, first = [], 0
        for k in range(1, k_count + 1):
            if k == k_count or commands[k].region != commands[first].region:
                groups.append((first, k, commands[first].region))
                first = k
    per_tile = len(groups)
    s = _Samples(tiles * per_tile, vocab)
    t_all = np.arange(tiles, dtype=np.int64)
    for g, (k0, k1, name) in enumerate(groups):
        pos = t_all * per_tile + g
        s.kind[pos] = COMPUTE
        s.start[pos] = tl.raw(tl.sync_start[k0], t_all)
        s.end[pos] = tl.raw(compute_end[k1 - 1], t_all)
        s.operation[pos] = vocab.code(name)
        if granularity == "region":
            s.phase[pos] = 2 * k0
            s.kernel[pos] = vocab.code(name)
            s.meta(pos, ["phase_start", "phase_end"], [vocab.code(str(2 * k0)), vocab.code(str(2 * k1))])
    return s, np.full(tiles, per_tile, dtype=np.int64)


def _fine(
    commands: list[Command],
    tl: Timeline,
    tiles: int,
    step: bool,
    schema_version: int,
    physical: np.ndarray,
    vocab: Vocab,
    progress: Callable[[int, int], None] | None,
):
    """phase / step: per phase a sync, an exchange and the compute (or idle) samples of every tile."""
    k_count = len(commands)
    calls = np.ones((k_count, tiles), dtype=np.int64)
    if step:
        for k, cmd in enumerate(commands):
            calls[k, cmd.tiles] = len(cmd.kernel_calls())
    per_phase = 2 + calls
    per_tile = per_phase.sum(axis=0)
    tile_first = np.cumsum(per_tile) - per_tile
    first = tile_first[None, :] + np.cumsum(per_phase, axis=0) - per_phase  # position of each phase's sync
    s = _Samples(int(per_tile.sum()), vocab)
    t_all = np.arange(tiles, dtype=np.int64)
    true, false = vocab.code("true"), vocab.code("false")
    idle_kind = COMPUTE if schema_version <= 2 else IDLE
    for k, cmd in enumerate(commands):
        ph = _phase_codes(vocab, cmd, tiles)
        busy_t, idle_t = cmd.tiles, np.flatnonzero(~ph.busy)
        target = f"{cmd.kernel} ({cmd.role})"
        exchange_op = f"exchange for {target}"
        kernel_code, role_code = vocab.code(cmd.kernel), vocab.code(cmd.role)
        active = np.where(ph.busy, true, false).astype(np.uint32)
        layer = _scalar(cmd.planner.get("layer"))

        # synchronization: from the end of the previous compute until the sync returns
        pos = first[k]
        s.kind[pos] = SYNC
        s.phase[pos] = 2 * k
        s.start[pos] = tl.raw(tl.sync_start[k], t_all)
        s.end[pos] = tl.raw(tl.sync_end[k], t_all)
        s.operation[pos] = vocab.code(f"sync before {exchange_op}")
        names, vals = ["active", "next_kernel", "next_role"], [active, kernel_code, role_code]
        if layer is not None:
            names.append("next_layer")
            vals.append(vocab.code(layer))
        s.meta(pos, names, vals)

        # exchange: ends at one device time on every tile
        pos = first[k] + 1
        tr = cmd.transfers
        send_count = np.bincount(tr.source, minlength=tiles)
        receive_count = np.bincount(tr.destination, minlength=tiles)
        send_bytes = np.bincount(tr.source, weights=tr.nbytes, minlength=tiles).astype(np.int64)
        receive_bytes = np.bincount(tr.destination, weights=tr.nbytes, minlength=tiles).astype(np.int64)
        s.kind[pos] = EXCHANGE
        s.phase[pos] = 2 * k
        s.start[pos] = tl.raw(tl.sync_end[k], t_all)
        s.end[pos] = tl.raw(np.full(tiles, tl.exchange_end[k]), t_all)
        s.operation[pos] = vocab.code(exchange_op)
        s.event_cycles[pos] = tl.send_cycles[k] + tl.receive_cycles[k]
        moving = np.where(send_count + receive_count > 0, true, false).astype(np.uint32)
        head = ["active", "send_count", "receive_count", "send_bytes", "receive_bytes", "next_kernel", "next_role"]
        counts = [vocab.ints(a) for a in (send_count, receive_count, send_bytes, receive_bytes)]
        for who, keys, key_vals in (
            (busy_t, ph.keys, ph.key_codes),
            (idle_t, [k_ for k_, _ in ph.common], [c for _, c in ph.common]),
        ):
            if not len(who):
                continue
            sel = np.searchsorted(t_all, who)
            s.meta(
                pos[who],
                head + [f"next_{key}" for key in keys],
                [moving[sel], *(c[sel] for c in counts), kernel_code, role_code, *key_vals],
            )
        if step and len(tr):
            _transfer_lists(s, vocab, tr, pos, physical)
        if schema_version >= 4 and len(tr):
            _exchange_activities(s, tl, k, tr, pos)

        # compute on busy tiles (one sample per kernel call at step granularity), idle elsewhere
        start = tl.exchange_end[k]
        shape_codes = _codes(vocab, cmd.shape, len(busy_t))
        names = ["role", "shape", "worker_count", "active_commands"]
        n_busy = len(busy_t)
        vals = [
            role_code,
            shape_codes,
            _codes(vocab, cmd.worker_count, n_busy),
            _codes(vocab, cmd.active_commands, n_busy),
        ]
        if step:
            names += [name for name, _ in cmd.step]
            vals += [_codes(vocab, v, len(busy_t)) for _, v in cmd.step]
        names += ph.keys
        vals += ph.key_codes
        cycles = tl.compute[k, busy_t]
        shares = np.cumsum([0.0] + [share for _, share in cmd.kernel_calls()]) if step else np.array([0.0, 1.0])
        shares /= shares[-1]
        kernels = [kernel for kernel, _ in cmd.kernel_calls()] if step else [cmd.kernel]
        for c, kernel in enumerate(kernels):
            pos = first[k, busy_t] + 2 + c
            s.kind[pos] = COMPUTE
            s.phase[pos] = 2 * k + 1
            s.start[pos] = tl.raw(start + np.floor(cycles * shares[c]).astype(np.int64), busy_t)
            s.end[pos] = tl.raw(start + np.floor(cycles * shares[c + 1]).astype(np.int64), busy_t)
            s.operation[pos] = ph.label
            s.kernel[pos] = vocab.code(kernel)
            s.meta(pos, names, vals)
        if len(idle_t):
            pos = first[k, idle_t] + 2
            s.kind[pos] = idle_kind
            s.phase[pos] = 2 * k + 1
            s.start[pos] = tl.raw(np.full(len(idle_t), start), idle_t)
            s.end[pos] = tl.raw(start + tl.compute[k, idle_t], idle_t)
            s.operation[pos] = vocab.code(f"idle during {target}")
            s.meta(
                pos,
                ["active", "scheduled_kernel", "scheduled_role", "scheduled_shape"]
                + [f"{key}" for key, _ in ph.common],
                [false, kernel_code, role_code, vocab.code(cmd.shape.first())] + [c for _, c in ph.common],
            )
        if progress is not None:
            progress(k + 1, k_count)
    return s, per_tile


def _transfer_lists(s: _Samples, vocab: Vocab, tr: Transfers, pos: np.ndarray, physical: np.ndarray) -> None:
    """Step granularity: `send_<i>` then `receive_<i>` entries listing every transfer of the tile."""
    n = len(tr)
    row = np.tile(np.arange(n, dtype=np.int64), 2)
    is_send = np.repeat([True, False], n)
    tile = np.concatenate([tr.source, tr.destination])
    group = tile * 2 + (~is_send)  # per tile: its sends, then its receives, each in transfer order
    order = np.argsort(group, kind="stable")
    row, is_send, tile, group = row[order], is_send[order], tile[order], group[order]
    rank = _rank(group)
    names = np.where(is_send, vocab.ints(rank, "send_{}"), vocab.ints(rank, "receive_{}"))
    values = np.empty(len(row), dtype=np.uint32)
    sent, received = row[is_send], row[~is_send]
    values[is_send] = vocab.rows(
        "tensor={},destination_tile={},bytes={}", tr.tensor[sent], physical[tr.destination[sent]], tr.nbytes[sent]
    )
    values[~is_send] = vocab.rows(
        "tensor={},source_tile={},bytes={}", tr.tensor[received], physical[tr.source[received]], tr.nbytes[received]
    )
    s.extra(pos[tile], names.astype(np.uint32), values)


def _exchange_activities(s: _Samples, tl: Timeline, k: int, tr: Transfers, pos: np.ndarray) -> None:
    """Schema ≥ 4: partner-busy wait, then sends (once per multicast tensor) and receives, back to back."""
    begin = int(tl.transfer_start[k])
    receives = np.lexsort((np.arange(len(tr)), tr.destination))
    r_tile, r_len = tr.destination[receives], _ceil4(tr.nbytes[receives])
    _, s_tile, s_bytes = _unique_sends(tr)
    s_len = _ceil4(s_bytes)
    involved = np.unique(np.concatenate([r_tile, s_tile]))
    waiting = involved[tl.sync_end[k, involved] < begin]
    tile = np.concatenate([waiting, s_tile, r_tile])
    kind = np.concatenate([np.full(len(waiting), 2), np.zeros(len(s_tile)), np.ones(len(r_tile))]).astype(np.int64)
    length = np.concatenate([begin - tl.sync_end[k, waiting], s_len, r_len])
    # per tile: the partner-busy wait, then sends, then receives (each kept in transfer order)
    order = np.argsort(tile * 3 + (kind + 1) % 3, kind="stable")
    tile, kind, length = tile[order], kind[order], length[order]
    is_wait = kind == 2
    group = tile * 3 + kind
    offset = np.cumsum(length) - length
    lead = np.ones(len(group), dtype=bool)
    lead[1:] = group[1:] != group[:-1]
    offset = offset - np.repeat(offset[lead], np.diff(np.append(np.flatnonzero(lead), len(group))))
    start = np.where(is_wait, tl.sync_end[k, tile], begin + offset)
    end = np.where(is_wait, begin, begin + offset + length)
    s.activities(pos[tile], kind, tl.raw(start, tile), tl.raw(end, tile))
