// Flow control of window requests: at most one in flight, always for the latest view.
// A change sends its request at once unless one is in flight; then the latest view goes
// out when that reply lands, so a burst of wheel events never queues stale windows in the
// kernel. A request for what was already asked is not sent again, and a reply to anything
// but the latest request is dropped.

import type { Disposers, Timer } from "./disposers";
import type { WindowRequest } from "./protocol";

/** A reply not back after this long (kernel busy or restarted) stops blocking new requests. */
export const LOST_REPLY_MS = 5000;

/** The window the current view needs. */
export type WindowAsk = Omit<WindowRequest, "type" | "view" | "id">;

/** What the timing records (trips.ts) hear about requests. */
export interface RequestLog {
  /** The view changed; a request for it is due (the first call since the last `sent` starts the wait). */
  changed(): void;
  /** No request was needed after all (the view asked for is the one asked for last). */
  settled(): void;
  sent(id: number): void;
}

export interface RequestsHost {
  /** The window the view needs now, and a key of everything its answer depends on (filters, colours…). */
  wanted(): { ask: WindowAsk; key: string };
  send(request: WindowRequest): void;
  log?: RequestLog;
  now?(): number;
}

export class WindowRequests {
  private latest = 0;
  private inFlight = false;
  private pending = false;
  private sentAt = 0;
  private sentKey = "";

  constructor(
    /** This view's id: requests carry it, and replies to other views never reach here. */
    private view: string,
    private host: RequestsHost,
  ) {}

  private now(): number {
    return this.host.now?.() ?? performance.now();
  }

  /** Whether a request is out and its reply not back (nor given up on). */
  get busy(): boolean {
    return this.inFlight && this.now() - this.sentAt < LOST_REPLY_MS;
  }

  /** The id of the latest request sent (0 before the first). */
  get latestId(): number {
    return this.latest;
  }

  /** Ask for the window the view needs now: sent at once, or when the reply in flight lands. */
  request(): void {
    this.host.log?.changed();
    const { ask, key } = this.host.wanted();
    if (key === this.sentKey) {
      // Already asked for (a trait echo, a second listener, a resize to the same width).
      this.pending = false;
      this.host.log?.settled();
      return;
    }
    if (this.busy) {
      this.pending = true;
      return;
    }
    this.inFlight = true;
    this.pending = false;
    this.sentKey = key;
    this.sentAt = this.now();
    const id = ++this.latest;
    this.host.log?.sent(id);
    this.host.send({ type: "window", view: this.view, id, ...ask });
  }

  /**
   * A window reply for this view arrived: true when it answers the latest request (draw it),
   * false for a stale one (drop it). The latest view, if it changed meanwhile, is asked for
   * before the caller draws this one.
   */
  receive(id: number | null): boolean {
    if (id !== this.latest) return false;
    this.release();
    return true;
  }

  /** The request `id` failed (an error reply, an unusable reply); undefined: the kernel could not say which. */
  failed(id?: number | null): void {
    if (id === undefined || id === null || id === this.latest) this.release();
  }

  private release(): void {
    this.inFlight = false;
    if (this.pending) this.request();
  }
}

/**
 * Side views (panel, tooltip, groups, flame graph, overview) that arrive while a window is
 * in flight are applied right after it: their DOM updates would each cost a frame first, and
 * the window reply would wait behind them. They wait at most `maxWaitMs`.
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
