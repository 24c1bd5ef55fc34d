// Flow control of block requests: at most one in flight. Whatever the view lacks goes out at
// once unless a request is out; then it goes when that one is answered (the kernel handles
// one message at a time, so requests queued there would only delay the latest view). When
// the view has everything, prefetch requests follow one after another until the blocks
// around it are held too, each once the host's hold allows (`RequestHold`: the kernel is not
// set to work on guesses while the moved view's frame is drawn, nor around the levels a zoom
// passes through). A reply not back after LOST_REPLY_MS stops blocking.

import type { Disposers, Timer } from "../common/disposers";
import type { Ask } from "../timeline/prefetch";
import type { Range } from "../timeline/view";

/** A reply not back after this long (kernel busy or restarted) stops blocking new requests. */
export const LOST_REPLY_MS = 5000;

/** What the timing records (trips.ts) hear about requests. */
export interface RequestLog {
  /** The view changed; a request for it is due (the first call since the last `sent` starts the wait). */
  changed(): void;
  /** No request was needed after all (the cache holds what the view needs). */
  settled(): void;
  sent(id: number, ask: Ask): void;
  /** A request is held: it goes when the hold ends. */
  held?(): void;
}

export interface RequestsHost {
  /** The next blocks to ask for, or null when nothing is missing. */
  next(): Ask | null;
  /** Send request `id` for `ask` (the host adds the view, filters and colouring it was made for). */
  send(id: number, ask: Ask): void;
  /** Request `id` is over (answered, failed or given up on): what it did not bring may be asked again. */
  over(id: number): void;
  log?: RequestLog;
  now?(): number;
  /** How long `ask` must still wait, in ms (0: it may go now); absent: nothing waits. */
  hold?(ask: Ask): number;
  /** The timer that sends a held request when its hold is over (needed with `hold`). */
  timer?(fn: () => void): Timer;
}

export class BlockRequests {
  private latest = 0;
  private inFlight = 0;
  private sentAt = 0;
  private ask: Ask | null = null;
  private held: Timer | null;

  constructor(private host: RequestsHost) {
    this.held = host.hold && host.timer ? host.timer(() => this.request()) : null;
  }

  private now(): number {
    return this.host.now?.() ?? performance.now();
  }

  /** Whether a request is out and its reply not back (nor given up on). */
  get busy(): boolean {
    if (this.inFlight && this.now() - this.sentAt >= LOST_REPLY_MS) {
      const lost = this.inFlight;
      this.inFlight = 0;
      this.host.over(lost);
    }
    return this.inFlight !== 0;
  }

  /** Whether a request waits for its hold to end (it goes by itself, or at `resume`). */
  get holding(): boolean {
    return this.held?.pending ?? false;
  }

  /** The id of the latest request sent (0 before the first). */
  get latestId(): number {
    return this.latest;
  }

  /** What the request in flight asks for (null when none). */
  get asked(): Ask | null {
    return this.inFlight ? this.ask : null;
  }

  /** Ask for what the view lacks (or, when it lacks nothing, what is around it): now, or when the reply in flight lands. */
  request(): void {
    this.host.log?.changed();
    if (this.busy) return;
    const ask = this.host.next();
    if (!ask) {
      this.held?.cancel();
      this.host.log?.settled();
      return;
    }
    const wait = this.host.hold?.(ask) ?? 0;
    if (wait > 0 && this.held) {
      this.held.start(wait);
      this.host.log?.held?.();
      return;
    }
    this.held?.cancel();
    const id = ++this.latest;
    this.inFlight = id;
    this.ask = ask;
    this.sentAt = this.now();
    this.host.log?.sent(id, ask);
    this.host.send(id, ask);
  }

  /** The host's hold may have ended early (the moved view's picture is drawn): a held request goes if so. */
  resume(): void {
    if (this.holding) this.request();
  }

  /** Request `id` was answered (its closing reply arrived): true when it was the one in flight. */
  receive(id: number | null): boolean {
    if (id === null || id !== this.inFlight) {
      if (id !== null) this.host.over(id);
      return false;
    }
    this.release();
    return true;
  }

  /** Request `id` failed (an error reply); undefined or null: the kernel could not say which. */
  failed(id?: number | null): void {
    if (id === undefined || id === null || id === this.inFlight) this.release();
    else this.host.over(id);
  }

  private release(): void {
    const id = this.inFlight;
    this.inFlight = 0;
    if (id) this.host.over(id);
    this.request();
  }
}

/**
 * Side views (panel, tooltip, groups, flame graph, overview) that arrive while a request is
 * in flight are applied right after it: their DOM updates would each cost a frame first, and
 * the blocks would wait behind them. They wait at most `maxWaitMs`.
 */
export class Deferred {
  private jobs: (() => void)[] = [];
  private timer: Timer;

  constructor(
    bag: Disposers,
    private maxWaitMs = 300,
  ) {
    this.timer = bag.timer(() => this.flush());
    bag.add(() => (this.jobs = []));
  }

  push(job: () => void): void {
    this.jobs.push(job);
    if (!this.timer.pending) this.timer.start(this.maxWaitMs);
  }

  flush(): void {
    this.timer.cancel();
    const jobs = this.jobs;
    this.jobs = [];
    for (const job of jobs) job();
  }
}

/** After a zoom, prefetches wait until the view has been still this long (a wheel spin passes through levels it leaves at once). */
export const ZOOM_HOLD_MS = 150;
/** After any move, prefetches wait for the new picture's frame, or this long when no frame comes (a hidden page). */
export const FRAME_HOLD_MS = 50;
/** ...and go this long after that frame's draw: its rendering and compositing come first. */
export const AFTER_FRAME_MS = 5;
/**
 * When a request may go: what the view lacks, at once; a prefetch, once the moved view's
 * picture is drawn (the kernel's guesses then do not compete with that frame for the CPUs),
 * and once a zoom has been still for `ZOOM_HOLD_MS`.
 */
export class RequestHold {
  private movedAt = -Infinity;
  private zoomedAt = -Infinity;
  private width = NaN;
  private drawn = true;

  constructor(private now: () => number = () => performance.now()) {}

  /** The view became `[s, e]` (a zoom when its width changed). */
  moved([s, e]: Range): void {
    const at = this.now();
    const width = e - s;
    if (!Number.isNaN(this.width) && Math.abs(width - this.width) > 1e-9 * Math.max(width, this.width))
      this.zoomedAt = at;
    this.width = width;
    this.movedAt = at;
    this.drawn = false;
  }

  /** The view's picture was drawn; true when this ends the wait for it. */
  drew(): boolean {
    const was = !this.drawn;
    this.drawn = true;
    return was;
  }

  /** How long `ask` must still wait, in ms. */
  wait(ask: Ask): number {
    if (!ask.prefetch) return 0;
    const at = this.now();
    const frame = this.drawn ? 0 : this.movedAt + FRAME_HOLD_MS - at;
    return Math.max(0, frame, this.zoomedAt + ZOOM_HOLD_MS - at);
  }
}
