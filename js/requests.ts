// Flow control of block requests: at most one in flight. Whatever the view lacks goes out at
// once unless a request is out; then it goes when that one is answered (the kernel handles
// one message at a time, so requests queued there would only delay the latest view). When
// the view has everything, prefetch requests follow one after another until the blocks
// around it are held too. A reply not back after LOST_REPLY_MS stops blocking.

import type { Disposers, Timer } from "./disposers";
import type { Ask } from "./prefetch";

/** A reply not back after this long (kernel busy or restarted) stops blocking new requests. */
export const LOST_REPLY_MS = 5000;

/** What the timing records (trips.ts) hear about requests. */
export interface RequestLog {
  /** The view changed; a request for it is due (the first call since the last `sent` starts the wait). */
  changed(): void;
  /** No request was needed after all (the cache holds what the view needs). */
  settled(): void;
  sent(id: number, ask: Ask): void;
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
}

export class BlockRequests {
  private latest = 0;
  private inFlight = 0;
  private sentAt = 0;
  private ask: Ask | null = null;

  constructor(private host: RequestsHost) {}

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
      this.host.log?.settled();
      return;
    }
    const id = ++this.latest;
    this.inFlight = id;
    this.ask = ask;
    this.sentAt = this.now();
    this.host.log?.sent(id, ask);
    this.host.send(id, ask);
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
