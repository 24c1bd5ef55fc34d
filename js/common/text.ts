// How a profile string is shown: the one source for every place the widget displays one
// (legend, tooltip, flame labels, groups table, inspector, timeline labels). Profile strings
// are untrusted: a bidi override can make "exe.lenrek_mmeg" read as "gemm_kernel.exe", a
// control character can break a line, so these become visible escapes; and a long name is cut
// with an ellipsis to the pixels it has.

/**
 * Code points shown as `\u{hex}`: C0 controls, DEL and C1, lone surrogates, line and paragraph
 * separators, the bidi marks, embeddings, overrides and isolates (U+061C, U+200E/U+200F,
 * U+202A–U+202E, U+2066–U+2069), the invisible look-alike makers (U+00AD, U+200B, U+2060–U+2064,
 * U+FEFF; not ZWJ/ZWNJ, which emoji and scripts need) and the noncharacters. The same set and escape as the kernel's
 * `ipu_nb._markup.sanitize.label`, so a name reads the same in the widget and in a chart.
 */
const ESCAPED =
  "\\u{0}-\\u{1f}\\u{7f}-\\u{9f}\\u{ad}\\u{d800}-\\u{dfff}\\u{61c}\\u{200b}\\u{200e}\\u{200f}\\u{2028}-\\u{202e}" +
  "\\u{2060}-\\u{2064}\\u{2066}-\\u{2069}\\u{feff}\\u{fdd0}-\\u{fdef}" +
  Array.from(
    { length: 17 },
    (_, plane) => `\\u{${(plane * 0x10000 + 0xfffe).toString(16)}}\\u{${(plane * 0x10000 + 0xffff).toString(16)}}`,
  ).join("");
/** One escaped character, or a backslash run before `u{` or an escaped character (doubled: the escape stays injective). */
const TRIGGER = new RegExp(`\\\\+(?=u\\{|[${ESCAPED}])|[${ESCAPED}]`, "gu");
const ELLIPSIS = "…";

/** `s` as it may be shown: invisible and reordering characters as visible `\u{hex}` escapes; ordinary text unchanged. */
export function displayText(s: string): string {
  TRIGGER.lastIndex = 0;
  if (!TRIGGER.test(s)) return s;
  return s.replace(TRIGGER, (m) => (m[0] === "\\" ? m + m : `\\u{${m.codePointAt(0)!.toString(16)}}`));
}

const fitted = new Map<string, string>();
const FITTED_MAX = 4096;

/**
 * `s` shown (`displayText`) and cut with "…" to fit `maxPx` pixels in `ctx`'s current font;
 * "" when not even the ellipsis fits. Takes the raw profile string (never `displayText`'s
 * output: that would escape twice), cuts it between code points and never inside an escape.
 * Binary search on `measureText`; answers are cached per font, width and string.
 */
export function fitText(ctx: CanvasRenderingContext2D, s: string, maxPx: number): string {
  if (!(maxPx > 0)) return "";
  const key = `${ctx.font}\u0000${maxPx}\u0000${s}`;
  const hit = fitted.get(key);
  if (hit !== undefined) return hit;
  const answer = cut(ctx, s, maxPx);
  if (fitted.size >= FITTED_MAX) fitted.clear();
  fitted.set(key, answer);
  return answer;
}

function cut(ctx: CanvasRenderingContext2D, s: string, maxPx: number): string {
  const width = (text: string) => ctx.measureText(text).width;
  const points = Array.from(s);
  // No visible character is narrower than a quarter pixel: a longer head cannot fit (and a
  // 200,000-character name is never measured whole).
  const longest = Math.min(points.length, Math.ceil(maxPx) * 4);
  if (longest === points.length) {
    const whole = displayText(s);
    if (width(whole) <= maxPx) return whole;
  }
  const head = (k: number) => displayText(points.slice(0, k).join("")) + ELLIPSIS;
  let lo = 0;
  let hi = longest;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (width(head(mid)) <= maxPx) lo = mid;
    else hi = mid - 1;
  }
  if (lo > 0) return head(lo);
  return width(ELLIPSIS) <= maxPx ? ELLIPSIS : "";
}

let scratch: CanvasRenderingContext2D | null = null;

/** A canvas context for measuring text in `font` (a CSS font), shared by the DOM parts. */
export function measuringContext(font: string): CanvasRenderingContext2D {
  scratch ??= document.createElement("canvas").getContext("2d")!;
  if (scratch.font !== font) scratch.font = font;
  return scratch;
}

/** The font `node` is drawn in, as a canvas font; the widget's default until it is styled (attached). */
export function fontOf(node: Element): string {
  const style = node.isConnected ? getComputedStyle(node) : null;
  if (!style?.fontSize) return DEFAULT_FONT;
  return `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
}
const DEFAULT_FONT = "12px sans-serif";

/**
 * Show profile string `s` in `node`, cut with "…" to `maxPx` pixels of `node`'s font; the
 * whole shown name goes in the node's title when cut. `font` saves reading it per node.
 */
export function setFittedText(node: HTMLElement, s: string, maxPx: number, font: string = fontOf(node)): void {
  const text = fitText(measuringContext(font), s, maxPx);
  node.textContent = text;
  const shown = displayText(s);
  node.title = text === shown ? "" : shown;
}
