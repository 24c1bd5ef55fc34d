// Binary buffers from the kernel arrive as DataViews that may share a larger buffer at
// any byteOffset: copy each into its own aligned ArrayBuffer before viewing it typed.

import type { LodWindow, RawWindow } from "./types";

export function bytesOf(view: DataView | ArrayBuffer | ArrayBufferView): ArrayBuffer {
  if (view instanceof ArrayBuffer) return view;
  const src = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  const out = new Uint8Array(view.byteLength);
  out.set(src);
  return out.buffer;
}

export function float32(view: DataView | ArrayBuffer | ArrayBufferView): Float32Array {
  return new Float32Array(bytesOf(view));
}

/** Inflate a zlib stream ("deflate" in the Compression Streams API). */
export async function inflate(data: ArrayBuffer): Promise<ArrayBuffer> {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Response(stream).arrayBuffer();
}

export async function decodeWindow(header: any, buffers: (DataView | ArrayBuffer)[]): Promise<RawWindow | LodWindow> {
  if (header.mode === "raw") {
    return {
      mode: "raw",
      start: header.start,
      end: header.end,
      count: header.count,
      x0: new Float32Array(bytesOf(buffers[0])),
      x1: new Float32Array(bytesOf(buffers[1])),
      row: new Uint16Array(bytesOf(buffers[2])),
      flags: new Uint8Array(bytesOf(buffers[3])),
      sample: new Uint32Array(bytesOf(buffers[4])),
      labels: Array.isArray(header.labels) ? header.labels : null,
      labelIndex: Array.isArray(header.labels) && buffers[5] ? new Uint32Array(bytesOf(buffers[5])) : null,
    };
  }
  return {
    mode: "lod",
    start: header.start,
    end: header.end,
    count: header.count,
    bins: header.bins,
    cells: new Uint8Array(header.compressed === "deflate" ? await inflate(bytesOf(buffers[0])) : bytesOf(buffers[0])),
  };
}
