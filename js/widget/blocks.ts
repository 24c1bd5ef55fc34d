// The timeline's blocks on their way from the kernel: asked for on every change (what the view
// lacks, then around it; at most one request in flight, requests.ts), kept in the block cache
// under the state they were asked for, and how the kernel answered each state.

import type { AnyModel } from "@anywidget/types";
import type { Disposers } from "../common/disposers";
import { decodeWindow } from "../kernel/buffers";
import type { BlocksReply, ToKernel, WindowReply } from "../kernel/protocol";
import { BlockRequests, RequestHold } from "../kernel/requests";
import { Trips } from "../kernel/trips";
import type { Traits } from "../kernel/types";
import { BLOCK_BINS } from "../timeline/levels";
import type { Painted } from "../timeline/painter";
import { nextAsk } from "../timeline/prefetch";
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

export class BlockFlow {
  readonly cache = new BlockCache();
  readonly trips: Trips;
  readonly hold = new RequestHold();
  readonly requests: BlockRequests;
  /** The state each request was made for: its blocks are stored under it. */
  private readonly asked = new Map<number, string>();
  /** How the kernel answered each state, for the root's dataset. */
  private readonly answeredAs = new Map<string, Answer>();
  /** The kernel held other filters or colours than this state (a change on its way here): wait for it. */
  private refused: string | null = null;
  /** The latest request for what the view lacked: its round trip and kernel time, for the status line. */
  private latest: Refined = { roundTrip: null, kernelMs: 0 };
  private disposed = false;

  constructor(
    private host: BlockFlowHost,
    root: HTMLElement,
    bag: Disposers,
  ) {
    this.trips = new Trips(root);
    this.requests = new BlockRequests({
      next: () => {
        const now = this.state();
        return this.refused === now
          ? null
          : nextAsk(this.cache, now, host.view(), host.pixels(), host.span(), this.limit());
      },
      send: (requestId, ask) => this.send(requestId, ask.level, ask.blocks),
      over: (requestId) => {
        this.cache.settle(requestId);
        queueMicrotask(() => this.trips.inFlight(this.requests.busy || this.requests.holding));
      },
      log: this.trips,
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
    return JSON.stringify([model.get("filters"), model.get("color_by"), model.get("showing")]);
  }

  /** How the kernel answered `state`, once it has. */
  answer(state: string): Answer | undefined {
    return this.answeredAs.get(state);
  }

  get refined(): Refined {
    return this.latest;
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
    this.requestAfterSave();
  }

  requestAfterSave(): void {
    queueMicrotask(() => this.request());
  }

  private limit(): number {
    return Math.max(this.host.model.get("info").span, 8);
  }

  private send(requestId: number, level: number, blocks: number[]): void {
    const model = this.host.model;
    const now = this.state();
    this.asked.set(requestId, now);
    if (this.asked.size > 200) this.asked.delete(this.asked.keys().next().value!);
    for (const k of blocks) this.cache.markPending(now, level, k, requestId);
    const [start, end] = this.host.view();
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
      start,
      end: Math.min(end, this.limit()),
    });
  }

  /**
   * Store a block the kernel sent, if this view asked for it. One of the current state is made
   * ready to draw at once, and drawn (`draw`) when it can change the picture: the view was not
   * complete and it lies in the view.
   */
  receive(msg: WindowReply, buffers: DataView[], timeline: BlockView, draw: () => void): void {
    const made = msg.id === null ? undefined : this.asked.get(msg.id);
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
   * A request is answered: its trip is recorded. Returns false when the kernel refused it as
   * stale (it held another state: its blocks are not asked for again until the state changes).
   */
  done(msg: BlocksReply): boolean {
    const trip = this.trips.answered(msg);
    if (msg.stale) {
      this.refused = msg.id === null ? null : (this.asked.get(msg.id) ?? null);
      return false;
    }
    if (trip && (!trip.prefetch || this.latest.roundTrip === null)) {
      this.latest = { roundTrip: trip.roundTripMs, kernelMs: msg.cost_ms.reduce((a, b) => a + b, 0) };
    }
    return true;
  }
}
