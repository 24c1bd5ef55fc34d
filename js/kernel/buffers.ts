// Binary buffers from the kernel arrive as DataViews that may share a larger buffer at
// any byteOffset: typed arrays view them in place when aligned, else over a copy.

import type { WindowReply } from "./protocol";
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
    return {
      mode: "raw",
      start: header.start,
      end: header.end,
      count: header.count,
      x0: typed(Float32Array, buffers[0]),
      x1: typed(Float32Array, buffers[1]),
      row: typed(Uint16Array, buffers[2]),
      flags: typed(Uint8Array, buffers[3]),
      sample: typed(Uint32Array, buffers[4]),
      labels: header.labels ?? null,
      labelIndex: header.labels && buffers[5] ? typed(Uint32Array, buffers[5]) : null,
    };
  }
  return {
    mode: "lod",
    start: header.start,
    end: header.end,
    count: header.count,
    bins: header.bins,
    cells:
      header.compressed === "xor-runs"
        ? unpackCells(header.rows, header.bins, header.runs ?? 0, buffers)
        : typed(Uint8Array, buffers[0]),
  };
}
