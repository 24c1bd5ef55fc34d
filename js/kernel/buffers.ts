// Binary buffers from the kernel arrive as DataViews that may share a larger buffer at
// any byteOffset: typed arrays view them in place when aligned, else over a copy. Which
// buffers a message carries, of what type and length, is `LAYOUTS` (generated.ts, from
// ipu_nb/_widget/protocol.py, whose encoder reads the same table).

import { LAYOUTS, type ToFrontEnd, type WindowReply } from "./generated";
import type { LodWindow, RawWindow } from "./types";

type Bytes = DataView | ArrayBuffer | ArrayBufferView;

export function bytesOf(view: Bytes): ArrayBuffer {
  if (view instanceof ArrayBuffer) return view;
  const src = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const out = new Uint8Array(view.byteLength);
  out.set(src);
  return out.buffer;
}

type Typed<T> = { new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T; BYTES_PER_ELEMENT: number };

/** `view` as a typed array: no copy when its offset suits the element size. */
export function typed<T>(Kind: Typed<T>, view: Bytes): T {
  if (view instanceof ArrayBuffer) return new Kind(view);
  if (view.byteOffset % Kind.BYTES_PER_ELEMENT === 0 && view.byteLength % Kind.BYTES_PER_ELEMENT === 0) {
    return new Kind(view.buffer, view.byteOffset, view.byteLength / Kind.BYTES_PER_ELEMENT);
  }
  return new Kind(bytesOf(view));
}

export function float32(view: Bytes): Float32Array {
  return typed(Float32Array, view);
}

/** A buffer's element type (little-endian). */
export type Dtype = "u8" | "u16" | "u32" | "f32" | "f64";

/** One buffer of a layout: as many `dtype` elements as the product of the header's `length` keys (none: any). */
export interface BufferSpec {
  readonly name: string;
  readonly dtype: Dtype;
  readonly length: readonly string[];
  /** The header key without which the buffer is not sent (null: always sent). */
  readonly only_with: string | null;
}

/** The buffers, in order, of a `message` whose header has the values `when` and the keys `needs`. */
export interface Layout {
  readonly message: string;
  readonly when: Readonly<Record<string, string | null>>;
  readonly needs: readonly string[];
  readonly buffers: readonly BufferSpec[];
}

const ARRAYS = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  f32: Float32Array,
  f64: Float64Array,
};

type ArrayOf<D extends Dtype> = InstanceType<(typeof ARRAYS)[D]>;

/** The typed arrays of a layout's buffers by name (null: a buffer the header left out). */
export type Decoded<L extends Layout> = {
  [B in L["buffers"][number] as B["name"]]: B["only_with"] extends string
    ? ArrayOf<B["dtype"]> | null
    : ArrayOf<B["dtype"]>;
};

/** The layout of the buffers `message` carries, or null when it carries none. */
export function layoutOf(message: ToFrontEnd): Layout | null {
  const fields = message as unknown as Record<string, unknown>;
  for (const layout of Object.values(LAYOUTS) as Layout[]) {
    if (layout.message !== message.type) continue;
    if (Object.entries(layout.when).every(([key, value]) => (fields[key] ?? null) === value)) return layout;
  }
  return null;
}

function sent(spec: BufferSpec, fields: Record<string, unknown>): boolean {
  return spec.only_with === null || Boolean(fields[spec.only_with]);
}

/**
 * The byte length of each buffer `layout` gives `message` (null: any), or why the header cannot
 * have them (a length key not a non-negative integer, a key the layout needs missing).
 */
export function byteLengths(layout: Layout, message: ToFrontEnd): (number | null)[] | string {
  const fields = message as unknown as Record<string, unknown>;
  const missing = layout.needs.filter((key) => fields[key] === undefined);
  if (missing.length) return `${message.type}.${missing[0]}: expected an integer with these buffers`;
  const out: (number | null)[] = [];
  for (const spec of layout.buffers) {
    if (!sent(spec, fields)) continue;
    let n = ARRAYS[spec.dtype].BYTES_PER_ELEMENT;
    for (const key of spec.length) {
      const value = fields[key];
      if (!Number.isInteger(value) || (value as number) < 0) return `${message.type}.${key}: expected a count`;
      n *= value as number;
    }
    out.push(spec.length.length ? n : null);
  }
  return out;
}

/** `buffers` as the typed arrays `layout` names, in place where aligned (their sizes checked before). */
export function decodeBuffers<L extends Layout>(layout: L, message: ToFrontEnd, buffers: readonly Bytes[]): Decoded<L> {
  const fields = message as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  let i = 0;
  for (const spec of layout.buffers) {
    out[spec.name] =
      sent(spec, fields) && i < buffers.length ? typed(ARRAYS[spec.dtype] as Typed<unknown>, buffers[i++]) : null;
  }
  return out as Decoded<L>;
}

/** Counts written by the kernel's `_counts`: one byte below 255, else 255 and a u32 little-endian. */
function readCounts(data: Uint8Array, n: number): Uint32Array {
  const out = new Uint32Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const b = data[at++];
    if (b < 255) out[i] = b;
    else {
      out[i] = (data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24)) >>> 0;
      at += 4;
    }
    if (at > data.length) throw new Error("truncated cell runs");
  }
  return out;
}

/**
 * Undo the kernel's `pack_cells`: runs of non-zero bytes (zeros before each, run lengths,
 * run bytes) give each row XOR the row above; XOR-ing downwards restores the rows.
 */
export function unpackCells(rows: number, bins: number, runs: number, buffers: Bytes[]): Uint8Array {
  const size = rows * bins;
  const out = new Uint8Array(size);
  const gaps = readCounts(typed(Uint8Array, buffers[0]), runs);
  const lengths = readCounts(typed(Uint8Array, buffers[1]), runs);
  const bytes = typed(Uint8Array, buffers[2]);
  let at = 0;
  let used = 0;
  for (let r = 0; r < runs; r++) {
    at += gaps[r];
    const n = lengths[r];
    if (at + n > size || used + n > bytes.length) throw new Error("cell runs overflow the grid");
    if (n < 16) for (let k = 0; k < n; k++) out[at + k] = bytes[used + k];
    else out.set(bytes.subarray(used, used + n), at);
    at += n;
    used += n;
  }
  if (bins % 4 === 0) {
    const words = new Uint32Array(out.buffer);
    const w = bins / 4;
    for (let i = w; i < words.length; i++) words[i] ^= words[i - w];
  } else {
    for (let i = bins; i < size; i++) out[i] ^= out[i - bins];
  }
  return out;
}

/** The typed arrays of a window reply (whose buffer sizes `parseKernelMessage` checked). */
export function decodeWindow(header: WindowReply, buffers: Bytes[]): RawWindow | LodWindow {
  if (header.mode === "raw") {
    const raw = decodeBuffers(LAYOUTS.raw_window, header, buffers);
    return {
      mode: "raw",
      start: header.start,
      end: header.end,
      count: header.count,
      x0: raw.x0,
      x1: raw.x1,
      row: raw.row,
      flags: raw.flags,
      sample: raw.sample,
      labels: header.labels ?? null,
      labelIndex: header.labels ? raw.label : null,
    };
  }
  const cells =
    header.compressed === "xor-runs"
      ? unpackCells(header.planes * header.rows, header.bins, header.runs ?? 0, buffers)
      : decodeBuffers(LAYOUTS.lod_window, header, buffers).cells;
  const { start, end, count, bins, classes } = header;
  return { mode: "lod", start, end, count, bins, classes, cells };
}
