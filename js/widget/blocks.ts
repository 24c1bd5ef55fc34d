// The timeline's blocks on their way from the kernel: asked for on every change (what the view
// lacks, then around it; at most one request in flight, requests.ts), kept in the block cache
// under the state they were asked for, and how the kernel answered each state. Every request
// brings back the samples in the view it was made for; those counts are kept per state and
// view, so the status line always says what the view shows (a view drawn wholly from the cache
// whose count is not known yet asks for one block of it, to bring its count).

import type { AnyModel } from "@anywidget/types";
import type { Disposers, Timer } from "../common/disposers";
import { decodeWindow } from "../kernel/buffers";
import type { BlocksReply, ToKernel, WindowReply } from "../kernel/protocol";
import { BlockRequests, RequestHold } from "../kernel/requests";
import { Trips } from "../kernel/trips";
import type { Traits } from "../kernel/types";
import { BLOCK_BINS, blocksIn, levelFor } from "../timeline/levels";
import type { Painted } from "../timeline/painter";
import { type Ask, nextAsk } from "../timeline/prefetch";
import { BlockCache } from "../timeline/tilecache";
import type { Timeline } from "../timeline/timeline";
import type { Range } from "../timeline/view";

export interface BlockFlowHost {
  /** This view's id: block replies for other views of the same widget name theirs. */
  id: string;
  model: AnyModel<Traits>;
  send(message: ToKernel): void;
  view(): Range;
  span(): number;
  /** The timeline's width in device pixels. */
  pixels(): number;
  /** Nothing is left to ask for the current state and view (its count is known, or in the reply being taken in). */
  settled(): void;
}

/** What the timeline does with a block of the current state as it arrives. */
export type BlockView = Pick<Timeline, "isFinal" | "prepare" | "inView" | "images">;

/** How the kernel answered a state: its colouring, whether filters were set. */
export interface Answer {
  colorBy: string;
  filtered: boolean;
}

/** What the status line says of the latest request for what the view lacked. */
export interface Refined {
  roundTrip: number | null;
  kernelMs: number;
}

/** Samples in a view, and of them those matching the filters (a `BlocksReply`'s). */
export interface Counted {
  count: number;
  matched: number;
}

/** What a request was made for: the state, and the view its reply counts the samples of. */
interface Made {
  state: string;
  view: string;
}

/** Counts kept (one per state and view seen lately). */
const COUNTS_KEPT = 200;
/**
 * After a stale reply the state is asked for again this much later, doubling each time, at most
 * `STALE_RETRIES` times: the trait update that makes the kernel agree may still wait behind
 * earlier ones (the widget framework sends one at a time), with nothing else to say when it is in.
 */
export const STALE_RETRY_MS = 100;
export const STALE_RETRIES = 8;

/** `BlockRequests` noting which request's closing reply is being read (`receive`'s, as the inbox calls it). */
class Requests extends BlockRequests {
  reading: number | null = null;

  override receive(id: number | null): boolean {
    this.reading = id;
    try {
      return super.receive(id);
    } finally {
      this.reading = null;
    }
  }
}

export class BlockFlow {
  readonly cache = new BlockCache();
  readonly trips: Trips;
  readonly hold = new RequestHold();
  readonly requests: Requests;
  /** The state and view each request was made for: its blocks are stored under the state. */
  private readonly asked = new Map<number, Made>();
  /** The samples in each state and view, as the replies counted them. */
  private readonly counts = new Map<string, Counted>();
  /**
   * The request whose closing reply is being taken in: the request queue picks the next one as
   * soon as it hears a request is over, before its reply is read (`done`: its count, or that it
   * was stale), so the choice waits for that (at most until a microtask). A failed request has
   * no reply to read: the next is chosen at once.
   */
  private closing: number | null = null;
  /** How the kernel answered each state, for the root's dataset. */
  private readonly answeredAs = new Map<string, Answer>();
  /** The kernel held other filters or colours than this state (a change on its way here): wait for it. */
  private refused: string | null = null;
  /** Asks for the refused state again (`STALE_RETRY_MS`); how many times it has since it was last answered. */
  private readonly retry: Timer;
  private retries = 0;
  /** The latest request for what the view lacked: its round trip and kernel time, for the status line. */
  private latest: Refined = { roundTrip: null, kernelMs: 0 };
  private disposed = false;

  constructor(
    private host: BlockFlowHost,
    root: HTMLElement,
    bag: Disposers,
  ) {
    this.trips = new Trips(root);
    this.retry = bag.timer(() => {
      this.refused = null;
      this.request();
    });
    this.requests = new Requests({
      next: () => {
        const now = this.state();
        if (this.closing !== null || this.refused === now) return null;
        return nextAsk(this.cache, now, host.view(), host.pixels(), host.span(), this.limit()) ?? this.countAsk();
      },
      send: (requestId, ask) => this.send(requestId, ask.level, ask.blocks),
      over: (requestId) => {
        if (this.requests.reading === requestId) this.closing = requestId;
        this.cache.settle(requestId);
        queueMicrotask(() => {
          this.taken(requestId);
          this.trips.inFlight(this.requests.busy || this.requests.holding);
        });
      },
      log: {
        changed: () => this.trips.changed(),
        settled: () => {
          if (this.closing !== null) return; // not settled: the choice waits for the reply (`taken`)
          this.trips.settled();
          host.settled();
        },
        sent: (id, ask) => this.trips.sent(id, ask),
        held: () => this.trips.held(),
      },
      hold: (ask) => this.hold.wait(ask),
      timer: (fn) => bag.timer(fn),
    });
    bag.add(() => {
      this.disposed = true;
    });
  }

  /** What a block's answer depends on besides the block: the filters and the colouring. */
  state(): string {
    const model = this.host.model;
    return JSON.stringify([model.get("filters"), model.get("color_by"), model.get("showing"), model.get("clock")]);
  }

  /** How the kernel answered `state`, once it has. */
  answer(state: string): Answer | undefined {
    return this.answeredAs.get(state);
  }

  get refined(): Refined {
    return this.latest;
  }

  /** The samples in the current view for the current state, once a reply has counted them. */
  counted(): Counted | undefined {
    return this.counts.get(this.viewKey());
  }

  /** Whether request `id` was made for another state or view than the current ones (its failure matters no more). */
  superseded(id: number | null | undefined): boolean {
    const made = id === null || id === undefined ? undefined : this.asked.get(id);
    return made !== undefined && (made.state !== this.state() || made.view !== this.viewKey());
  }

  /** Ask for what the view lacks (or what is around it), unless the view is gone. */
  request(): void {
    if (!this.disposed) this.requests.request();
  }

  /**
   * The state changed (filters, colouring, the profile shown): ask again. The kernel answers for
   * the filters and colours the request names, so the request waits until the trait update saved
   * right after `model.set` has gone out ahead of it.
   */
  restate(): void {
    this.refused = null;
    this.retries = 0;
    this.retry.cancel();
    this.requestAfterSave();
  }

  requestAfterSave(): void {
    queueMicrotask(() => this.request());
  }

  private limit(): number {
    return Math.max(this.host.model.get("info").span, 8);
  }

  /** The range a request for the current view names: the samples its reply counts are those overlapping it. */
  private viewRange(): [number, number] {
    const [start, end] = this.host.view();
    return [start, Math.min(end, this.limit())];
  }

  private viewKey(): string {
    return `${this.state()}|${this.viewRange().join(",")}`;
  }

  /**
   * When the cache holds all the view needs but its count is not known: one block of the view
   * (a prefetch, so it waits for the picture), whose reply brings the count.
   */
  private countAsk(): Ask | null {
    if (this.counted()) return null;
    const [start, end] = this.viewRange();
    const level = levelFor([start, end], this.host.pixels(), this.host.span());
    const inView = blocksIn(level, start, end, this.limit());
    return inView.length ? { level, blocks: [inView[inView.length >> 1]], prefetch: true } : null;
  }

  private send(requestId: number, level: number, blocks: number[]): void {
    const model = this.host.model;
    const now = this.state();
    this.asked.set(requestId, { state: now, view: this.viewKey() });
    if (this.asked.size > 200) this.asked.delete(this.asked.keys().next().value!);
    for (const k of blocks) this.cache.markPending(now, level, k, requestId);
    const [start, end] = this.viewRange();
    this.host.send({
      type: "blocks",
      view: this.host.id,
      id: requestId,
      level,
      bins: BLOCK_BINS,
      blocks,
      labels: true, // raw blocks are kept, and may be drawn later with rows tall enough for names
      filters: model.get("filters"),
      color_by: model.get("color_by"),
      showing: model.get("showing"),
      clock: model.get("clock"),
      start,
      end,
    });
  }

  /**
   * Store a block the kernel sent, if this view asked for it. One of the current state is made
   * ready to draw at once, and drawn (`draw`) when it can change the picture: the view was not
   * complete and it lies in the view.
   */
  receive(msg: WindowReply, buffers: DataView[], timeline: BlockView, draw: () => void): void {
    const made = msg.id === null ? undefined : this.asked.get(msg.id)?.state;
    if (made === undefined || msg.level === undefined || msg.block === undefined) return;
    const began = performance.now();
    const data = { ...decodeWindow(msg, buffers), colorBy: msg.color_by };
    const current = made === this.state();
    const lacking = current && !timeline.isFinal(); // asked before the block is stored
    const entry = this.cache.put(made, msg.level, msg.block, data);
    if (current) {
      timeline.prepare(entry);
      if (lacking && timeline.inView(entry)) draw();
    }
    this.answeredAs.set(made, { colorBy: msg.color_by, filtered: msg.filtered });
    if (this.answeredAs.size > 50) this.answeredAs.delete(this.answeredAs.keys().next().value!);
    this.trips.block(msg.id!, performance.now() - began);
  }

  /** A picture was drawn: the timing records note it, with what it was of (the view and the state). */
  drew(painted: Painted, final: boolean, ms: number, timeline: BlockView): void {
    this.trips.drew(
      {
        level: painted.level,
        final,
        blocks: painted.blocks,
        exact: painted.exact,
        standIns: painted.standIns,
        mode: painted.blocks > 0 && painted.raw.length === painted.blocks ? "raw" : "lod",
        drawMs: ms,
        made: painted.made,
      },
      `${this.host.view()}|${this.state()}`,
    );
    this.trips.images(timeline.images());
  }

  /**
   * A request is answered: its trip is recorded, and the samples in the view it was made for.
   * Returns false when the kernel refused it as stale (it held another state: its blocks are
   * asked for again a little later, or at once when the state changes).
   */
  done(msg: BlocksReply): boolean {
    const trip = this.trips.answered(msg);
    const made = msg.id === null ? undefined : this.asked.get(msg.id);
    if (msg.stale) {
      this.refused = made?.state ?? null;
      if (this.refused !== null && this.retries < STALE_RETRIES) this.retry.start(STALE_RETRY_MS * 2 ** this.retries++);
      this.taken(msg.id);
      return false;
    }
    this.retries = 0;
    if (made) {
      this.counts.delete(made.view); // the latest last: the oldest go first
      this.counts.set(made.view, { count: msg.count, matched: msg.matched });
      if (this.counts.size > COUNTS_KEPT) this.counts.delete(this.counts.keys().next().value!);
    }
    if (trip && (!trip.prefetch || this.latest.roundTrip === null)) {
      this.latest = { roundTrip: trip.roundTripMs, kernelMs: msg.cost_ms.reduce((a, b) => a + b, 0) };
    }
    this.taken(msg.id);
    return true;
  }

  /** The reply to request `id` is read (or none came): the next request may be chosen. */
  private taken(id: number | null): void {
    if (id === null || id !== this.closing) return;
    this.closing = null;
    this.request();
  }
}
