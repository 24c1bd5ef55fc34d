// Drawing waits for the next animation frame, once however many changes asked for it.

import type { Disposers } from "./disposers";

/** A function asking for `draw` at the next frame (one call per frame at most; cancelled with `bag`). */
export function frameScheduler(bag: Disposers, draw: () => void): () => void {
  let frame = 0;
  bag.add(() => {
    cancelAnimationFrame(frame);
    frame = -1; // never again
  });
  return () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      draw();
    });
  };
}
