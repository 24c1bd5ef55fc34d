// The raster worker: makes block images off the page's main thread (imagemaker.ts sends the
// jobs). Bundled on its own (package.json's build) and started from a blob of that bundle.
// Each reply is the job's id with an ImageBitmap, transferred; or the error, as text.

import { blockPixels, type ImageJob, PixelScratch } from "./raster";

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
/** Pixels reused from job to job; a job arriving while the last one's bitmap is still being made gets fresh ones. */
const scratch = new PixelScratch();
let scratchInUse = false;

scope.onmessage = (event) => {
  const job = event.data;
  let made: Promise<ImageBitmap>;
  const reuse = !scratchInUse;
  try {
    const { pixels, width, height } = blockPixels(job, reuse ? scratch : undefined);
    const rgba = new Uint8ClampedArray(pixels.buffer as ArrayBuffer, pixels.byteOffset, pixels.length * 4);
    if (reuse) scratchInUse = true;
    made = createImageBitmap(new ImageData(rgba, width, height));
  } catch (error) {
    made = Promise.reject(error);
  }
  if (reuse) made = made.finally(() => (scratchInUse = false));
  made.then(
    (bitmap) => scope.postMessage({ id: job.id, bitmap }, [bitmap]),
    (error) => scope.postMessage({ id: job.id, error: String(error) }),
  );
};
