// Block images made off the page's main thread: jobs (raster.ts's `ImageJob`) go to the
// raster worker one at a time, so a job the view needs now goes ahead of those made in
// advance for blocks that just arrived; each image comes back as an ImageBitmap. Where no
// worker can run (no Worker, a page policy refusing blob workers, a job that failed), the
// maker says so and the painter makes images on the page as before. While the view moves,
// the jobs made in advance wait (`hold`): input and its frames come before background work.

import workerSource from "../../build/rasterworker.txt";
import type { Disposers, Timer } from "../common/disposers";
import type { ImageJob } from "./raster";
import type { WorkerJob, WorkerReply } from "./rasterworker";

/** Jobs handed to the worker at a time; the others wait here, the urgent first. */
const IN_WORKER = 1;
/**
 * After the view moves, jobs made in advance (blocks just arrived) wait this long after the
 * latest move: on a machine of few cores the worker would otherwise take CPU from the frames
 * of a pan or zoom still going on. The jobs the view waits for go at once.
 */
export const HOLD_MS = 150;

/** The parts of a Worker the maker uses (a fake one in unit tests). */
export interface WorkerLike {
  postMessage(message: WorkerJob): void;
  terminate(): void;
  onmessage: ((event: MessageEvent<WorkerReply>) => void) | null;
  onerror: ((event: Event) => void) | null;
}

interface Queued {
  key: string;
  job: ImageJob;
  urgent: boolean;
  done(image: ImageBitmap): void;
}

/** The raster worker started from its bundled source, or null where none can run. */
export function startRasterWorker(): WorkerLike | null {
  if (typeof Worker === "undefined" || typeof Blob === "undefined" || typeof createImageBitmap === "undefined")
    return null;
  let url = "";
  try {
    url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
    const worker = new Worker(url, { name: "ipu-nb raster" });
    // The blob is read when the worker starts; its URL can go once that is under way.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return worker as unknown as WorkerLike;
  } catch {
    if (url) URL.revokeObjectURL(url);
    return null;
  }
}

export class ImageMaker {
  private worker: WorkerLike | null | undefined = undefined;
  private nextId = 0;
  private queue: Queued[] = [];
  private out = new Map<number, Queued>();
  private keys = new Set<string>();
  /** Images the worker has made. */
  made = 0;
  private heldUntil = -Infinity;
  private resume: Timer;

  /** `ready`: an image the view waits for arrived, or the worker failed (draw again). */
  constructor(
    private ready: () => void,
    bag: Disposers,
    private start: () => WorkerLike | null = startRasterWorker,
    private now: () => number = () => performance.now(),
  ) {
    this.resume = bag.timer(() => this.pump());
    bag.add(() => this.stop());
  }

  /** The view moved: jobs made in advance wait until it has been still for `HOLD_MS`. */
  hold(): void {
    this.heldUntil = this.now() + HOLD_MS;
  }

  /** Whether images are made off the page (else the caller makes them itself). */
  get available(): boolean {
    if (this.worker === undefined) {
      this.worker = this.start();
      if (this.worker) {
        this.worker.onmessage = (event) => this.reply(event.data);
        this.worker.onerror = () => this.fail();
      }
    }
    return this.worker !== null;
  }

  /** Whether the image named `key` is on its way. */
  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Whether the image named `key` is being made in the worker now (it comes within milliseconds). */
  making(key: string): boolean {
    return this.inWorker(key) !== undefined;
  }

  private inWorker(key: string): Queued | undefined {
    for (const item of this.out.values()) if (item.key === key) return item;
    return undefined;
  }

  /** Jobs queued or in the worker. */
  get size(): number {
    return this.keys.size;
  }

  /**
   * Make `job`'s image in the worker and hand it to `done`; an urgent job (one the view waits
   * for) goes ahead of the others queued. A key already on its way is not made twice (urgent
   * moves it ahead). False when there is no worker: make the image yourself.
   */
  submit(key: string, job: ImageJob, urgent: boolean, done: (image: ImageBitmap) => void): boolean {
    if (!this.available) return false;
    if (this.keys.has(key)) {
      const at = this.queue.findIndex((q) => q.key === key);
      if (urgent && at >= 0 && !this.queue[at].urgent) {
        const [item] = this.queue.splice(at, 1);
        item.urgent = true;
        this.enqueue(item);
      } else if (urgent) {
        const made = this.inWorker(key);
        if (made) made.urgent = true; // its arrival draws
      }
      return true;
    }
    this.keys.add(key);
    this.enqueue({ key, job, urgent, done });
    this.pump();
    return true;
  }

  /** Drop the queued jobs `keep` refuses (images of a layout or colours no longer drawn). */
  retain(keep: (key: string) => boolean): void {
    this.queue = this.queue.filter((q) => {
      if (keep(q.key)) return true;
      this.keys.delete(q.key);
      return false;
    });
  }

  private enqueue(item: Queued): void {
    if (!item.urgent) {
      this.queue.push(item);
      return;
    }
    const firstLater = this.queue.findIndex((q) => !q.urgent);
    if (firstLater < 0) this.queue.push(item);
    else this.queue.splice(firstLater, 0, item);
  }

  private pump(): void {
    while (this.worker && this.out.size < IN_WORKER && this.queue.length) {
      const wait = this.heldUntil - this.now();
      if (!this.queue[0].urgent && wait > 0) {
        if (!this.resume.pending) this.resume.start(wait);
        return;
      }
      const item = this.queue.shift()!;
      const id = ++this.nextId;
      this.out.set(id, item);
      this.worker.postMessage({ ...item.job, id });
    }
  }

  private reply(msg: WorkerReply): void {
    const item = this.out.get(msg.id);
    if (!item) return;
    this.out.delete(msg.id);
    this.keys.delete(item.key);
    if ("error" in msg) {
      this.fail(); // made on the page from now on, where an error reaches the status line
      return;
    }
    this.made++;
    item.done(msg.bitmap);
    this.pump();
    // An image made in advance is drawn when the view comes to it (a draw then asks for it
    // urgently if it is still on its way); drawing now would repeat the same picture.
    if (item.urgent) this.ready();
  }

  /** The worker could not start, died or failed a job: everything left is made on the page. */
  private fail(): void {
    this.stop();
    this.ready();
  }

  private stop(): void {
    this.worker?.terminate();
    this.worker = null;
    this.queue = [];
    this.out.clear();
    this.keys.clear();
  }
}
