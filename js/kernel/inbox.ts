// Messages from the kernel on their way to the widget's parts: checked (protocol.ts), the
// malformed ones dropped and reported once per type, block replies for other views
// ignored, and side views held back while a request for what this view lacks is in flight
// (requests.ts). Nothing thrown while applying a message escapes to the model's listener.

import { type BlocksReply, type ErrorReply, parseKernelMessage, type ToFrontEnd, type WindowReply } from "./protocol";
import type { BlockRequests, Deferred } from "./requests";

/** Everything but block replies and the replies closing block requests: side views, hover, search, errors. */
export type SideMessage = Exclude<ToFrontEnd, WindowReply | BlocksReply>;

export interface InboxHandlers {
  /** One block answering a request of this view (any of its requests: every block is worth keeping). */
  block(msg: WindowReply, buffers: DataView[]): void;
  /** A request of this view is answered (its blocks came before). */
  done(msg: BlocksReply): void;
  /** Every other message, in arrival order once released (errors are never held back). */
  side(msg: SideMessage, buffers: DataView[]): void;
  /** Applying a message of type `type` threw `error`. */
  failed(type: ToFrontEnd["type"], error: unknown): void;
}

/** The request types whose failure ends a block request of this view. */
const BLOCK_REQUESTS = new Set(["blocks", "window"]);

export class Inbox {
  private reported = new Set<string>();

  constructor(
    private view: string,
    private requests: BlockRequests,
    private deferred: Deferred,
    private handlers: InboxHandlers,
    private warn: (text: string) => void = (text) => console.warn(text),
  ) {}

  receive(content: unknown, buffers: DataView[]): void {
    const parsed = parseKernelMessage(content, buffers);
    if (!parsed.ok) {
      const kind = parsed.type ?? "(no type)";
      if (!this.reported.has(kind)) {
        this.reported.add(kind);
        this.warn(`ipu-nb widget: dropped a message from the kernel (${parsed.problem})`);
      }
      if ((parsed.type === "window" || parsed.type === "blocks") && parsed.view === this.view) {
        // Part of the answer to a request of this view is unusable: that request is over.
        this.error({
          type: "error",
          request: "blocks",
          view: this.view,
          id: parsed.id ?? undefined,
          message: parsed.problem,
        });
      }
      return;
    }
    const msg = parsed.message;
    if (msg.type === "window") {
      if (msg.view !== this.view || msg.block === undefined) return; // another view's, or not a block
      this.guard("window", () => this.handlers.block(msg, buffers));
    } else if (msg.type === "blocks") {
      if (msg.view !== this.view) return;
      const current = this.requests.receive(msg.id);
      this.guard("blocks", () => this.handlers.done(msg));
      if (current) this.deferred.flush();
    } else if (msg.type === "error") {
      this.error(msg);
    } else if (this.holding()) {
      this.deferred.push(() => this.apply(msg, buffers));
    } else {
      this.apply(msg, buffers);
    }
  }

  /** Whether a request for what the view lacks is out (prefetching holds nothing back). */
  private holding(): boolean {
    return this.requests.busy && !(this.requests.asked?.prefetch ?? true);
  }

  private guard(type: ToFrontEnd["type"], job: () => void): void {
    try {
      job();
    } catch (error) {
      this.handlers.failed(type, error);
    }
  }

  private apply(msg: SideMessage, buffers: DataView[]): void {
    this.guard(msg.type, () => this.handlers.side(msg, buffers));
  }

  private error(msg: ErrorReply): void {
    this.apply(msg, []);
    const mine = (msg.view ?? this.view) === this.view;
    if ((msg.request !== undefined && BLOCK_REQUESTS.has(msg.request) && mine) || msg.request === undefined) {
      this.requests.failed(msg.id); // the blocks asked for are not coming
      this.deferred.flush();
    }
  }
}
