// Pure view arithmetic: zooming and panning a [start, end) range of cycles inside [0, span].

export type Range = [number, number];

export const MIN_WIDTH = 8;

/** Clamp a range into [0, span], keeping its width when possible. */
export function clampView([start, end]: Range, span: number): Range {
  const limit = Math.max(span, MIN_WIDTH);
  let width = Math.min(Math.max(end - start, MIN_WIDTH), limit);
  const s = Math.max(0, Math.min(start, limit - width));
  width = Math.min(width, limit - s);
  return [Math.round(s), Math.round(s + width)];
}

/** Zoom by `factor` (< 1 zooms in) keeping the cycle under `anchor` (0..1 across the view) fixed. */
export function zoomAt(view: Range, factor: number, anchor: number, span: number): Range {
  const [s, e] = view;
  const width = (e - s) * factor;
  const at = s + (e - s) * anchor;
  return clampView([at - width * anchor, at - width * anchor + width], span);
}

/** Shift by a fraction of the width (negative moves left). */
export function pan(view: Range, fraction: number, span: number): Range {
  const shift = (view[1] - view[0]) * fraction;
  return clampView([view[0] + shift, view[1] + shift], span);
}

/** Range between two cycles in either order. */
export function between(a: number, b: number, span: number): Range {
  return clampView([Math.min(a, b), Math.max(a, b)], span);
}

/** A view of the same width centred on `at`. */
export function centre(view: Range, at: number, span: number): Range {
  const half = (view[1] - view[0]) / 2;
  return clampView([at - half, at + half], span);
}

/**
 * The view that shows `[a, b]` (a search match): the same view when it is inside already,
 * else one of the same width centred on it, or, when it is wider than most of the view, it
 * with a tenth of its width each side.
 */
export function showing(view: Range, a: number, b: number, span: number): Range {
  const [s, e] = view;
  if (b - a > 0.8 * (e - s)) return clampView([a - (b - a) * 0.1, b + (b - a) * 0.1], span);
  if (a >= s && b <= e) return [s, e];
  return centre(view, (a + b) / 2, span);
}
