// The messages between the kernel (ipu_nb/_widget/widget.py) and this front end, and the one
// place where what the kernel sends is checked before anything acts on it. The messages, their
// checks and their buffer layouts are generated from ipu_nb/_widget/protocol.py into
// generated.ts (`python -m ipu_nb._widget.protocol_gen`); docs/widget-protocol.md describes them.

import { byteLengths, layoutOf } from "./buffers";
import { isObject, ShapeError } from "./checks";
import {
  type AreaPush,
  type FlamePush,
  type FromFrontEnd,
  type HighlightPush,
  type PanelPush,
  REPLY_CHECKS,
  type SampleDetail,
  type SampleInfo as SampleFields,
  type ToFrontEnd,
} from "./generated";

export * from "./generated";

// The names these messages had here before protocol.py named them (some modules still import them).
export type ToKernel = FromFrontEnd;
export type FromKernel = ToFrontEnd;
export type PanelMessage = PanelPush;
export type FlameMessage = FlamePush;
export type AreaMessage = AreaPush;
export type HighlightMessage = HighlightPush;

/** A sample as the tooltip and the inspector take it: a `SampleInfo`, with `SampleDetail`'s metadata from a panel. */
export type SampleInfo = SampleFields & Partial<Pick<SampleDetail, "metadata">>;

/** For a `switch` over every message type: a new type not handled is a compile error. */
export function unhandled(message: never): never {
  throw new Error(`unhandled message ${JSON.stringify(message)}`);
}

/** The buffers of `message` against its layout (protocol.LAYOUTS): their number and byte lengths. */
function checkBuffers(message: ToFrontEnd, buffers: readonly DataView[]): void {
  const layout = layoutOf(message);
  if (layout === null) return;
  const lengths = byteLengths(layout, message);
  if (typeof lengths === "string") throw new ShapeError(lengths);
  if (buffers.length !== lengths.length) {
    throw new ShapeError(`${message.type}: expected ${lengths.length} buffers, got ${buffers.length}`);
  }
  lengths.forEach((bytes, i) => {
    if (bytes !== null && buffers[i].byteLength !== bytes) {
      throw new ShapeError(`${message.type} buffer ${i}: expected ${bytes} bytes, got ${buffers[i].byteLength}`);
    }
  });
}

export type Parsed =
  | { ok: true; message: ToFrontEnd }
  | {
      ok: false;
      /** What is wrong, one line. */
      problem: string;
      /** The message's `type` when it is a string (a known type with a bad field, or an unknown one). */
      type: string | null;
      /** Its `view` and `id` where well-formed, so a broken window reply can still release its request. */
      view: string | null;
      id: number | null;
    };

/** `content` as a message from the kernel, or why it is not one; never throws. */
export function parseKernelMessage(content: unknown, buffers: readonly DataView[]): Parsed {
  const field = (name: string): unknown => {
    try {
      return isObject(content) ? content[name] : undefined;
    } catch {
      return undefined; // a getter that throws: not a message from JSON
    }
  };
  const refuse = (problem: string): Parsed => {
    const [type, view, id] = [field("type"), field("view"), field("id")];
    return {
      ok: false,
      problem,
      type: typeof type === "string" ? type : null,
      view: typeof view === "string" ? view : null,
      id: Number.isInteger(id) ? (id as number) : null,
    };
  };
  try {
    if (!isObject(content))
      return refuse(`a message must be an object, got ${content === null ? "null" : typeof content}`);
    const type = content.type;
    // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn is ES2022; the bundle targets ES2020
    if (typeof type !== "string" || !Object.prototype.hasOwnProperty.call(REPLY_CHECKS, type)) {
      return refuse(`unknown message type ${JSON.stringify(type) ?? String(type)}`);
    }
    const message: ToFrontEnd = REPLY_CHECKS[type as ToFrontEnd["type"]](content, type);
    checkBuffers(message, buffers);
    return { ok: true, message };
  } catch (error) {
    return refuse(error instanceof ShapeError ? error.message : "unreadable message");
  }
}
