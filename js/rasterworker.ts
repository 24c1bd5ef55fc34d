// The raster worker: makes block images off the page's main thread (imagemaker.ts sends the
// jobs). Bundled on its own (package.json's build) and started from a blob of that bundle.
// Each reply is the job's id with an ImageBitmap, transferred; or the error, as text.

import { blockPixels, type ImageJob } from "./raster";

/** A job as the page sends it. */
export interface WorkerJob extends ImageJob {
  id: number;
}

/** What the worker answers for job `id`. */
export type WorkerReply = { id: number; bitmap: ImageBitmap } | { id: number; error: string };

interface WorkerScope {
  onmessage: ((event: MessageEvent<WorkerJob>) => void) | null;
  postMessage(message: WorkerReply, transfer?: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;

scope.onmessage = (event) => {
  const job = event.data;
  let made: Promise<ImageBitmap>;
  try {
    const { pixels, width, height } = blockPixels(job);
    made = createImageBitmap(new ImageData(new Uint8ClampedArray(pixels.buffer as ArrayBuffer), width, height));
  } catch (error) {
    made = Promise.reject(error);
  }
  made.then(
    (bitmap) => scope.postMessage({ id: job.id, bitmap }, [bitmap]),
    (error) => scope.postMessage({ id: job.id, error: String(error) }),
  );
};
