// Messages from the kernel on their way to the widget's parts: checked (protocol.ts), the
// malformed ones dropped and reported once per type, window replies for other views
// ignored, and side views held back while this view's window is in flight (requests.ts).
// Nothing thrown while applying a message escapes to the model's listener.

import { type ErrorReply, type FromKernel, parseKernelMessage, type WindowReply } from "./protocol";
import type { Deferred, WindowRequests } from "./requests";

/** Everything but window replies: side views, hover and group replies, errors. */
export type SideMessage = Exclude<FromKernel, WindowReply>;

export interface InboxHandlers {
  /** The reply to this view's latest window request. */
  window(msg: WindowReply, buffers: DataView[]): void;
  /** Every other message, in arrival order once released (errors are never held back). */
  side(msg: SideMessage, buffers: DataView[]): void;
  /** Applying a message of type `type` threw `error`. */
  failed(type: FromKernel["type"], error: unknown): void;
}

export class Inbox {
  private reported = new Set<string>();

  constructor(
    private view: string,
    private requests: WindowRequests,
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
      if (parsed.type === "window" && parsed.view === this.view) {
        // The reply to a request of this view is unusable: that request is over.
        this.error({ type: "error", request: "window", view: this.view, id: parsed.id ?? undefined, message: parsed.problem });
      }
      return;
    }
    const msg = parsed.message;
    if (msg.type === "window") {
      if (msg.view !== this.view) return; // another view of the same widget asked for this one
      // A reply to an earlier request is stale: dropped. The latest view, if it changed
      // while this reply travelled, is asked for before this one is drawn.
      if (!this.requests.receive(msg.id)) return;
      try {
        this.handlers.window(msg, buffers);
      } catch (error) {
        this.handlers.failed("window", error);
      }
      this.deferred.flush();
    } else if (msg.type === "error") {
      this.error(msg);
    } else if (this.requests.busy) {
      this.deferred.push(() => this.apply(msg, buffers));
    } else {
      this.apply(msg, buffers);
    }
  }

  private apply(msg: SideMessage, buffers: DataView[]): void {
    try {
      this.handlers.side(msg, buffers);
    } catch (error) {
      this.handlers.failed(msg.type, error);
    }
  }

  private error(msg: ErrorReply): void {
    this.apply(msg, []);
    if ((msg.request === "window" && (msg.view ?? this.view) === this.view) || msg.request === undefined) {
      this.requests.failed(msg.id); // the window asked for is not coming
      this.deferred.flush();
    }
  }
}
