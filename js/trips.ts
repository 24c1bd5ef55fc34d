// Timing records of window requests, kept on the root element for benchmarks and tests
// (benchmarks/bench_widget.py and tests/browser read them):
//   root.ipuTrips            the latest 200 `Trip`s
//   data-request-id          id of the latest request sent
//   data-window-id           id of the latest reply drawn, with data-round-trip-ms, data-draw-ms,
//                            data-mode, data-color-by and data-filtered as that reply answered
//   data-first-draw-at       wall clock (ms since the epoch) of the first reply drawn

import type { RequestLog } from "./requests";
import type { WindowReply } from "./protocol";
import type { WindowData } from "./types";

/** One window request as the widget saw it. */
export interface Trip {
  id: number;
  mode: string;
  sentEpochMs: number; // wall clock, to line up with the kernel's log
  arrivedEpochMs: number;
  waitMs: number; // view change → request sent (waiting for an earlier reply)
  roundTripMs: number; // request sent → reply decoded
  decodeMs: number; // reply arrived → decoded
  drawMs: number;
}

const KEEP = 200;
/** Sent times kept for replies; more means replies were lost (a kernel restart). */
const OUTSTANDING = 100;

/** When a reply arrived and was decoded (`performance.now()` times) and how long drawing it took. */
export interface ReplyTimes {
  arrived: number;
  decoded: number;
  drawMs: number;
}

export class Trips implements RequestLog {
  readonly records: Trip[] = [];
  private changedAt = 0; // when the view first changed since the last request (0: none pending)
  private lastSent = 0;
  private sentTimes = new Map<number, number>();
  private waits = new Map<number, number>();

  constructor(
    private root: HTMLElement,
    private now: () => number = () => performance.now(),
  ) {
    (root as HTMLElement & { ipuTrips?: Trip[] }).ipuTrips = this.records;
  }

  changed(): void {
    if (!this.changedAt) this.changedAt = this.now();
  }

  settled(): void {
    this.changedAt = 0;
  }

  sent(id: number): void {
    const at = this.now();
    if (this.sentTimes.size > OUTSTANDING) {
      this.sentTimes.clear();
      this.waits.clear();
    }
    this.lastSent = at;
    this.sentTimes.set(id, at);
    this.waits.set(id, at - (this.changedAt || at));
    this.changedAt = 0;
    this.root.dataset.requestId = String(id);
  }

  /** Record the reply drawn; returns its round trip (request sent → reply decoded) in ms. */
  answered(reply: WindowReply, data: WindowData, times: ReplyTimes): number {
    const id = reply.id ?? -1;
    const sent = this.sentTimes.get(id) ?? this.lastSent;
    const wait = this.waits.get(id) ?? 0;
    this.sentTimes.delete(id);
    this.waits.delete(id);
    const roundTrip = times.decoded - sent;
    this.records.push({
      id,
      mode: data.mode,
      sentEpochMs: performance.timeOrigin + sent,
      arrivedEpochMs: performance.timeOrigin + times.arrived,
      waitMs: wait,
      roundTripMs: roundTrip,
      decodeMs: times.decoded - times.arrived,
      drawMs: times.drawMs,
    });
    if (this.records.length > KEEP) this.records.shift();
    const d = this.root.dataset;
    d.windowId = String(id);
    d.roundTripMs = roundTrip.toFixed(1);
    d.drawMs = times.drawMs.toFixed(1);
    d.mode = data.mode;
    d.colorBy = data.colorBy; // what the kernel answered with (tests check it follows the controls)
    d.filtered = String(reply.filtered);
    if (!d.firstDrawAt) d.firstDrawAt = String(Date.now());
    return roundTrip;
  }
}
