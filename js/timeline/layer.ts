// Layers over the timeline's bars (overlay, highlights, the selected area): a layer with
// nothing to show is cleared once and then left alone. Every canvas changed in a frame is
// one more picture for the page to paint and hand to the compositor (a few milliseconds per
// full-size canvas in a software-rendered page), and most frames have nothing on most layers.

import { sizeCanvas } from "../common/dom";

const blank = new WeakSet<HTMLCanvasElement>();

/**
 * The layer `canvas` sized to `width` × `height` CSS pixels and cleared, ready to draw on,
 * when `drawing`; otherwise null, the canvas cleared unless it is blank already.
 */
export function layerContext(
  canvas: HTMLCanvasElement,
  width: number,
  height: number,
  drawing: boolean,
): CanvasRenderingContext2D | null {
  const was = [canvas.width, canvas.height];
  const ctx = sizeCanvas(canvas, width, height);
  const resized = canvas.width !== was[0] || canvas.height !== was[1]; // a resized canvas is blank
  if (!drawing) {
    if (!resized && !blank.has(canvas)) ctx.clearRect(0, 0, width, height);
    blank.add(canvas);
    return null;
  }
  if (!resized) ctx.clearRect(0, 0, width, height);
  blank.delete(canvas);
  return ctx;
}
