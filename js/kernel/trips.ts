// Timing records of block requests and drawn frames, kept on the root element for
// benchmarks and tests (benchmarks/bench_widget.py and tests/browser read them):
//   root.ipuTrips            the latest 200 `Trip`s (one per request answered)
//   root.ipuFrames           the latest 400 `Frame`s (one per picture drawn)
//   data-request-id          id of the latest request sent; data-answered-id of the latest answered,
//                            with data-round-trip-ms; data-in-flight "true" while one is out
//                            or a prefetch is held (the kernel is still to be asked)
//   data-window-id           how many complete pictures of a new view or state were drawn (whether
//                            the kernel was asked or the cache held them): tests wait on it, data-color-by
//                            and data-filtered as its blocks answered
//   data-first-draw-at       wall clock (ms since the epoch) of the first complete picture
//   data-level, data-final,  the level of the latest picture, whether it was complete, and
//   data-mode                "raw" when every block of it came from raw intervals (else "lod")
//   data-images-page,        block images made so far on the page and in the raster worker
//   data-images-worker       ("none" when there is no worker)

import type { Ask } from "../timeline/prefetch";
import type { BlocksReply } from "./protocol";
import type { RequestLog } from "./requests";

/** One block request as the widget saw it. */
export interface Trip {
  id: number;
  level: number;
  blocks: number;
  prefetch: boolean;
  sentEpochMs: number; // wall clock, to line up with the kernel's log
  arrivedEpochMs: number;
  waitMs: number; // view change → request sent (waiting for an earlier reply)
  roundTripMs: number; // request sent → closing reply arrived
  decodeMs: number; // decoding its blocks
  /** What the kernel spent on each block (summary and encoding), milliseconds. */
  kernelMs: number[];
  stale: boolean;
}

/** One picture as drawn. */
export interface Frame {
  at: number; // performance.now() when drawn
  level: number;
  /** Every block of the view drawn from its exact answer for the current filters and colours. */
  final: boolean;
  /** Blocks in view; of them drawn exactly, and drawn from another level or state. */
  blocks: number;
  exact: number;
  standIns: number;
  /** "raw" when every block came from raw intervals, else "lod" (summaries drawn). */
  mode: string;
  drawMs: number;
  /** Block images made on the page while drawing it. */
  made: number;
}

const KEEP = 200;
const KEEP_FRAMES = 400;
/** Sent times kept for replies; more means replies were lost (a kernel restart). */
const OUTSTANDING = 100;

interface Sent {
  at: number;
  wait: number;
  ask: Ask;
  decodeMs: number;
}

function set(d: DOMStringMap, name: string, value: string): void {
  if (d[name] !== value) d[name] = value;
}

export class Trips implements RequestLog {
  readonly records: Trip[] = [];
  readonly frames: Frame[] = [];
  private changedAt = 0; // when the view first changed since the last request (0: none pending)
  private sent_ = new Map<number, Sent>();
  private pictured = "";
  private pictures = 0;

  constructor(
    private root: HTMLElement,
    private now: () => number = () => performance.now(),
  ) {
    const r = root as HTMLElement & { ipuTrips?: Trip[]; ipuFrames?: Frame[] };
    r.ipuTrips = this.records;
    r.ipuFrames = this.frames;
  }

  changed(): void {
    if (!this.changedAt) this.changedAt = this.now();
  }

  settled(): void {
    this.changedAt = 0;
    set(this.root.dataset, "inFlight", "false");
  }

  held(): void {
    set(this.root.dataset, "inFlight", "true"); // the kernel will be asked: not settled yet
  }

  sent(id: number, ask: Ask): void {
    const at = this.now();
    if (this.sent_.size > OUTSTANDING) this.sent_.clear();
    this.sent_.set(id, { at, wait: at - (this.changedAt || at), ask, decodeMs: 0 });
    this.changedAt = 0;
    this.root.dataset.requestId = String(id);
    this.root.dataset.inFlight = "true";
  }

  /** A block of request `id` was decoded (and kept) in `ms`. */
  block(id: number, ms: number): void {
    const s = this.sent_.get(id);
    if (s) s.decodeMs += ms;
  }

  /** Record request `reply.id` answered; returns its record (null for a request not sent by this view). */
  answered(reply: BlocksReply): Trip | null {
    const id = reply.id ?? -1;
    const s = this.sent_.get(id);
    if (!s) return null;
    this.sent_.delete(id);
    const arrived = this.now();
    const roundTrip = arrived - s.at;
    const trip: Trip = {
      id,
      level: s.ask.level,
      blocks: s.ask.blocks.length,
      prefetch: s.ask.prefetch,
      sentEpochMs: performance.timeOrigin + s.at,
      arrivedEpochMs: performance.timeOrigin + arrived,
      waitMs: s.wait,
      roundTripMs: roundTrip,
      decodeMs: s.decodeMs,
      kernelMs: reply.cost_ms,
      stale: reply.stale,
    };
    this.records.push(trip);
    if (this.records.length > KEEP) this.records.shift();
    const d = this.root.dataset;
    d.answeredId = String(id);
    d.roundTripMs = roundTrip.toFixed(1);
    return trip;
  }

  /** Whether a request is out (set after each request ends, when the next may have gone). */
  inFlight(out: boolean): void {
    set(this.root.dataset, "inFlight", String(out));
  }

  /** Block images made so far on the page and in the worker (false: there is none). */
  images(made: { page: number; worker: number | false }): void {
    set(this.root.dataset, "imagesPage", String(made.page));
    set(this.root.dataset, "imagesWorker", made.worker === false ? "none" : String(made.worker));
  }

  /** A picture of `what` (the view and state) was drawn. */
  drew(frame: Omit<Frame, "at">, what = ""): void {
    this.frames.push({ at: this.now(), ...frame });
    if (this.frames.length > KEEP_FRAMES) this.frames.shift();
    // Only what changed: every attribute written costs the page a style pass.
    const d = this.root.dataset;
    set(d, "level", String(frame.level));
    set(d, "mode", frame.mode);
    set(d, "final", String(frame.final));
    if (!d.firstDrawAt && frame.final && frame.blocks > 0) d.firstDrawAt = String(Date.now());
    if (frame.final && what !== this.pictured) {
      this.pictured = what;
      d.windowId = String(++this.pictures);
    }
  }
}
