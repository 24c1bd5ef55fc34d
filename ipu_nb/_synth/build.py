"""Turn a schedule of commands into the samples the runtime writes, as `Columns` (all numpy, no per-sample Python).

graph and region granularity cut the device-time layout (`ipu_nb._synth.timeline`) into one
sample per tile or per region; phase and step emit, per phase, every tile's sync,
exchange and compute-or-idle samples with the metadata real profiles carry
(docs/reference/workloads.md#samples-per-granularity, docs/reference/workloads.md#generated-samples).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._model.columns import STEP_KINDS, Columns, Strings
from .._progress import Report
from .plan import Command, Fmt, Transfers
from .samples import Samples, rank
from .timeline import CLOCK_HZ, Timeline, c600_physical_tiles, ceil4, timeline, unique_sends
from .vocab import Vocab

__all__ = ["build_columns"]

EXCHANGE, COMPUTE, SYNC, IDLE = (STEP_KINDS.index(k) for k in ("exchange", "compute", "synchronization", "idle"))


def _codes(vocab: Vocab, value: object, n: int) -> np.ndarray:
    """Codes of a planner / step value for n busy tiles."""
    if isinstance(value, Fmt):
        return np.broadcast_to(vocab.rows(value.fmt, *value.columns), (n,))
    if isinstance(value, str):
        return np.full(n, vocab.code(value), dtype=np.uint32)
    if isinstance(value, bool):
        return np.full(n, vocab.code("true" if value else "false"), dtype=np.uint32)
    if not isinstance(value, (int, np.integer, np.ndarray)):
        raise TypeError(f"a step value must be a Fmt, str, bool, int or integer array, got {type(value).__name__}")
    return np.broadcast_to(vocab.ints(value if isinstance(value, np.ndarray) else int(value), n=n), (n,))


def _scalar(value: object) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, np.integer)):
        return str(value)
    return None


@dataclass
class _Phase:
    """Per-command codes shared by the sync, exchange and compute samples."""

    busy: np.ndarray  # bool [T]
    keys: list[str]  # sorted planner keys, but `label` (it is the compute sample's operation)
    key_codes: list[np.ndarray]  # per key, codes for the busy tiles
    common: list[tuple[str, int]]  # planner keys constant over the phase (sorted), with their value code
    label: np.ndarray


def _phase_codes(vocab: Vocab, cmd: Command, tiles: int) -> _Phase:
    n = len(cmd.tiles)
    busy = np.zeros(tiles, dtype=bool)
    busy[cmd.tiles] = True
    keys = sorted(k for k in cmd.planner if k != "label")
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
    report: Report | None = None,
) -> Columns:
    """All samples of `commands` at `granularity`, in the runtime's file order (`report(done, total)` per phase)."""
    tl = timeline(commands, tiles, rng, base_cycle)
    physical = c600_physical_tiles(tiles)
    vocab = Vocab()
    if granularity in ("graph", "region"):
        s, counts = _coarse(commands, tl, tiles, granularity, vocab)
        if report is not None:
            report(1, 1)
    else:
        s, counts = _fine(commands, tl, tiles, granularity == "step", schema_version, physical, vocab, report)
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


def _compact(vocab: Vocab, codes: np.ndarray) -> Strings:
    """A `Strings` column whose dictionary holds only the strings this column uses (first-use order kept)."""
    used = np.zeros(len(vocab), dtype=bool)
    used[codes] = True
    keep = np.flatnonzero(used)
    remap = np.cumsum(used, dtype=np.int64) - 1
    return Strings(remap[codes].astype(np.uint32), vocab.arrow().take(keep))


def _coarse(
    commands: list[Command], tl: Timeline, tiles: int, granularity: str, vocab: Vocab
) -> tuple[Samples, np.ndarray]:
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
    s = Samples(tiles * per_tile, vocab)
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
    report: Report | None,
) -> tuple[Samples, np.ndarray]:
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
    s = Samples(int(per_tile.sum()), vocab)
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
        names = ["active", "next_kernel", "next_role"]
        vals: list[np.ndarray | int] = [active, kernel_code, role_code]
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
        if len(tr):
            s.event_cycles[pos] = event_window(tl, k)
        moving = np.where(send_count + receive_count > 0, true, false).astype(np.uint32)
        head = ["active", "send_count", "receive_count", "send_bytes", "receive_bytes", "next_kernel", "next_role"]
        counts = [vocab.ints(a) for a in (send_count, receive_count, send_bytes, receive_bytes)]
        for who, keys, key_vals in (
            (busy_t, ph.keys, ph.key_codes),
            (idle_t, [k_ for k_, _ in ph.common], [c for _, c in ph.common]),
        ):
            if not len(who):
                continue
            s.meta(
                pos[who],
                head + [f"next_{key}" for key in keys],
                [moving[who], *(c[who] for c in counts), kernel_code, role_code, *key_vals],
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
        names += ph.keys
        vals += ph.key_codes
        if step:  # operands, arguments and the command label after the planner keys
            names += [name for name, _ in cmd.step] + ["label"]
            vals += [_codes(vocab, v, n_busy) for _, v in cmd.step] + [ph.label]
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
                ["active", "scheduled_kernel", "scheduled_role", "scheduled_shape"] + [key for key, _ in ph.common],
                [false, kernel_code, role_code, vocab.code(cmd.shape.first())] + [c for _, c in ph.common],
            )
        if report is not None:
            report(k + 1, k_count)
    return s, per_tile


def _transfer_lists(s: Samples, vocab: Vocab, tr: Transfers, pos: np.ndarray, physical: np.ndarray) -> None:
    """Step granularity: `send_<i>` then `receive_<i>` entries listing every transfer of the tile."""
    n = len(tr)
    row = np.tile(np.arange(n, dtype=np.int64), 2)
    is_send = np.repeat([True, False], n)
    tile = np.concatenate([tr.source, tr.destination])
    group = tile * 2 + (~is_send)  # per tile: its sends, then its receives, each in transfer order
    order = np.argsort(group, kind="stable")
    row, is_send, tile, group = row[order], is_send[order], tile[order], group[order]
    index = rank(group)
    names = np.where(is_send, vocab.ints(index, "send_{}"), vocab.ints(index, "receive_{}"))
    values = np.empty(len(row), dtype=np.uint32)
    sent, received = row[is_send], row[~is_send]
    values[is_send] = vocab.rows(
        "tensor={},destination_tile={},bytes={}", tr.tensor[sent], physical[tr.destination[sent]], tr.nbytes[sent]
    )
    values[~is_send] = vocab.rows(
        "tensor={},source_tile={},bytes={}", tr.tensor[received], physical[tr.source[received]], tr.nbytes[received]
    )
    s.extra(pos[tile], names.astype(np.uint32), values)


#: Cycles from the start of a tile's sends to the start of its receives: the first words' latency.
_RECEIVE_LAG = 8
#: The longest partner-busy stretch: a tile waits at most this long for a late partner.
_MAX_PARTNER_WAIT = 16
#: Cycles of the window after the longest send or receive: every tile ends on an idle tail.
_TAIL = 16


def event_window(tl: Timeline, k: int) -> int:
    """The scheduled exchange window of phase `k`: room for the longest wait, lag, transfer and tail.

    It stays shorter than the measured exchange (`ipu_nb._synth.timeline` gives that the
    longest transfer plus at least 48 cycles), so each phase has a boundary to measure.
    """
    longest = max(int(tl.send_cycles[k].max(initial=0)), int(tl.receive_cycles[k].max(initial=0)))
    return longest + _MAX_PARTNER_WAIT + _RECEIVE_LAG + _TAIL


def _exchange_activities(s: Samples, tl: Timeline, k: int, tr: Transfers, pos: np.ndarray) -> None:
    """Schema ≥ 4: per tile, a partner-busy wait, then its sends and, a few cycles later, its receives.

    Offsets are cycles inside the phase's exchange window (`event_window`), as the newest
    runtime reads them (docs/reference/workloads.md#generated-samples): a tile whose
    sync returned early waits for its partners (at most `_MAX_PARTNER_WAIT`), then sends
    (once per multicast tensor) back to back while its receives, also back to back, start
    `_RECEIVE_LAG` cycles after its first send, so the two overlap; the rest of the window
    is idle.
    """
    receives = np.lexsort((np.arange(len(tr)), tr.destination))
    r_tile, r_len = tr.destination[receives], ceil4(tr.nbytes[receives])
    _, s_tile, s_bytes = unique_sends(tr)
    s_len = ceil4(s_bytes)
    involved = np.unique(np.concatenate([r_tile, s_tile]))
    arrival = tl.sync_end[k]
    wait = np.minimum(arrival.max() - arrival, _MAX_PARTNER_WAIT)  # per logical tile
    waiting = involved[wait[involved] > 0]
    tile = np.concatenate([waiting, s_tile, r_tile])
    kind = np.concatenate([np.full(len(waiting), 2), np.zeros(len(s_tile)), np.ones(len(r_tile))]).astype(np.int64)
    length = np.concatenate([wait[waiting], s_len, r_len])
    # per tile: the partner-busy wait, then sends, then receives (each kept in transfer order)
    order = np.argsort(tile * 3 + (kind + 1) % 3, kind="stable")
    tile, kind, length = tile[order], kind[order], length[order]
    group = tile * 3 + kind
    offset = np.cumsum(length) - length
    lead = np.ones(len(group), dtype=bool)
    lead[1:] = group[1:] != group[:-1]
    offset = offset - np.repeat(offset[lead], np.diff(np.append(np.flatnonzero(lead), len(group))))
    begin = wait[tile] + np.where(kind == 1, _RECEIVE_LAG, 0)
    start = np.where(kind == 2, 0, begin + offset)
    end = start + length
    s.activities(pos[tile], kind, start.astype(np.uint32), end.astype(np.uint32))
