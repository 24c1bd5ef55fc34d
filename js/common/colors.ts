// Colours: the samples' (colour class 0 is "not matching the filters"; 1..31 index the
// legend of the colour mode) and the canvases' chrome, both following the page's theme.
// The chrome comes from the widget's CSS variables (widget.css maps them onto JupyterLab's
// `--jp-*` ones), read from computed styles so a theme switch redraws in the new colours.
// The theme is the page's, shared by every view: `theme()` is the current one.

import type { Disposers } from "./disposers";

export type RGB = [number, number, number];

/**
 * The kind colours of the light theme: the kernel's palette (`info.vocabulary.palette`,
 * ipu_nb.palette()), set by `usePalette` when the vocabulary is read; empty before (then
 * kinds take the kernel colours, or without those the neutral grey). The dark theme's are `darkVariant`s of these.
 */
let kinds: Readonly<Record<string, RGB>> = {};

/** Take the kind colours from the kernel's palette (`{kind: "#rrggbb"}`); entries that are not such colours are left out. */
export function usePalette(palette: Readonly<Record<string, string>>): void {
  const out: Record<string, RGB> = {};
  for (const [kind, text] of Object.entries(palette)) {
    if (/^#[0-9a-f]{6}$/i.test(text)) out[kind] = parseColour(text)!;
  }
  kinds = out;
}

/**
 * A light-theme colour as the dark theme draws it: a quarter of the way to white in sRGB, so
 * it keeps its hue and stands out from a dark plot as the original does from a light one.
 */
export function darkVariant([r, g, b]: RGB): RGB {
  return [r, g, b].map((c) => Math.round(c + (255 - c) * DARK_LIFT)) as RGB;
}
const DARK_LIFT = 0.25;

/** Each kind's colour in a theme (the current one by default): the palette's, or its `darkVariant`. */
export function kindColours(dark: boolean = current.dark): Record<string, RGB> {
  const out: Record<string, RGB> = {};
  for (const [kind, rgb] of Object.entries(kinds)) out[kind] = dark ? darkVariant(rgb) : rgb;
  return out;
}

/**
 * The colours of colour mode "kernel", class 1 first: the kernel's table
 * (`info.vocabulary.kernel_palette`, ipu_nb/_model/palette.py `KERNEL_PALETTE`), set by
 * `useKernelPalette` when the vocabulary is read; empty before (then every class is the
 * neutral `noKernel` grey). Both themes draw them as they are.
 */
let kernels: readonly RGB[] = [];

/** Take the kernel colours from the kernel's table (`["#rrggbb", ...]`); entries that are not such colours are left out. */
export function useKernelPalette(palette: readonly string[]): void {
  kernels = palette.filter((text) => /^#[0-9a-f]{6}$/i.test(text)).map((text) => parseColour(text)!);
}

/** The kernel colours as last taken (`useKernelPalette`). */
export function kernelPalette(): readonly RGB[] {
  return kernels;
}

/** The colour of legend entry `i` in a kernel colouring: the table's, cycling; the neutral grey without one. */
function kernelColour(i: number): RGB {
  return kernels.length ? kernels[i % kernels.length] : current.noKernel;
}

/** Canvas chrome, as CSS colours; each from a `--ipu-nb-canvas-*` variable of widget.css. */
export interface Chrome {
  /** Behind the canvases (the widget's background). */
  background: string;
  /** The plot area. */
  plot: string;
  /** Labels, ticks and axis text. */
  text: string;
  /** Tick marks and separators. */
  line: string;
  /** The cursor line. */
  cursor: string;
  /** The selected sample's outline. */
  outline: string;
  /** Accents (the overview's view box, drags). */
  accent: string;
}

export interface Theme extends Chrome {
  /** A dark background (then greys and fades go darker, not lighter). */
  dark: boolean;
  /** Samples not matching the filters. */
  grey: RGB;
  /** Samples without a kernel, when colouring by kernel: a grey clearly apart from `grey`. */
  noKernel: RGB;
  /** The plot background as RGB (what fades mix towards). */
  plotRgb: RGB;
}

const CHROME_VARIABLES: Record<keyof Chrome, string> = {
  background: "--ipu-nb-canvas-bg",
  plot: "--ipu-nb-canvas-plot",
  text: "--ipu-nb-canvas-text",
  line: "--ipu-nb-canvas-line",
  cursor: "--ipu-nb-canvas-cursor",
  outline: "--ipu-nb-canvas-outline",
  accent: "--ipu-nb-canvas-accent",
};

/** The greys of each theme: "not matching" recedes into the background, "(no kernel)" stands out from it. */
export const GREYS: Readonly<Record<"light" | "dark", { grey: RGB; noKernel: RGB }>> = {
  light: { grey: [214, 216, 220] as RGB, noKernel: [118, 118, 126] as RGB },
  dark: { grey: [66, 68, 73] as RGB, noKernel: [150, 150, 158] as RGB },
};

/** The light theme with widget.css's fallbacks: what applies until the styles are read. */
export const LIGHT: Theme = {
  background: "#ffffff",
  plot: "#fafafa",
  text: "#555555",
  line: "#999999",
  cursor: "#dd0000",
  outline: "#111111",
  accent: "#e0a000",
  dark: false,
  plotRgb: [250, 250, 250],
  ...GREYS.light,
};

let current: Theme = LIGHT;

/** The page's theme as last read (`LIGHT` before any widget read it). */
export function theme(): Theme {
  return current;
}

/** The "not matching" grey of the current theme. */
export function grey(): RGB {
  return current.grey;
}

/**
 * RGB for each class index of a legend (index 0 = not matching); `noKernel` names the samples without a kernel.
 * Modes "kind" and "activity" name their classes by the palette's keys (the kinds, what an exchange window holds).
 */
export function classColours(mode: string, legend: string[], noKernel: string): RGB[] {
  const out: RGB[] = [current.grey];
  const byKind = kindColours();
  legend.forEach((name, i) => {
    if (mode === "kind" || mode === "activity") out.push(byKind[name] ?? kernelColour(i));
    else if (name === noKernel) out.push(current.noKernel);
    else out.push(kernelColour(i));
  });
  while (out.length < 32) out.push([0, 0, 0]);
  return out;
}

/** The colour of a step kind in the current theme (a neutral grey for an unknown one). */
export function kindColour(kind: string): RGB {
  const rgb = kinds[kind];
  if (!rgb) return current.noKernel;
  return current.dark ? darkVariant(rgb) : rgb;
}

export function css([r, g, b]: RGB, alpha = 1): string {
  return alpha >= 1 ? `rgb(${r},${g},${b})` : `rgba(${r},${g},${b},${alpha})`;
}

/** `a` moved a fraction `t` (0..1) of the way to `b`. */
export function mix(a: RGB, b: RGB, t: number): RGB {
  const k = Math.min(1, Math.max(0, t));
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * k)) as RGB;
}

/** WCAG relative luminance of an sRGB colour (0 black … 1 white). */
export function luminance([r, g, b]: RGB): number {
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio of two colours (1 … 21). */
export function contrast(a: RGB, b: RGB): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** Black or white, whichever reads better on `background`. */
export function textOn(background: RGB): RGB {
  return contrast(background, [0, 0, 0]) >= contrast(background, [255, 255, 255]) ? [0, 0, 0] : [255, 255, 255];
}

/**
 * A computed CSS colour (`rgb()`, `rgba()` or `color(srgb …)`, as browsers serialise them)
 * as RGB composited over `under`; null when it is none of these.
 */
export function parseColour(text: string, under: RGB = [255, 255, 255]): RGB | null {
  const t = text.trim();
  let rgba: number[] | null = null;
  const m = /^rgba?\(([^)]*)\)$/i.exec(t);
  if (m) {
    const v = m[1]
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map((p, i) => (p.endsWith("%") ? (parseFloat(p) / 100) * (i < 3 ? 255 : 1) : parseFloat(p)));
    if (v.length >= 3 && v.every(Number.isFinite)) rgba = [v[0], v[1], v[2], v[3] ?? 1];
  }
  const c = /^color\(srgb\s+([^)]*)\)$/i.exec(t);
  if (c) {
    const v = c[1]
      .split(/[\s/]+/)
      .filter(Boolean)
      .map(parseFloat);
    if (v.length >= 3 && v.every(Number.isFinite)) rgba = [v[0] * 255, v[1] * 255, v[2] * 255, v[3] ?? 1];
  }
  const h = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(t);
  if (h) {
    const hex = h[1].length === 3 ? [...h[1]].map((x) => x + x).join("") : h[1];
    rgba = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)).concat(1);
  }
  if (!rgba) return null;
  const a = Math.min(1, Math.max(0, rgba[3]));
  return [0, 1, 2].map((i) => Math.round(Math.min(255, Math.max(0, rgba![i])) * a + under[i] * (1 - a))) as RGB;
}

const hex = (c: RGB) => `#${c.map((v) => v.toString(16).padStart(2, "0")).join("")}`;

/**
 * The theme `root`'s computed styles give (its `--ipu-nb-canvas-*` variables resolved
 * through a probe element); a variable that does not resolve keeps the light fallback.
 */
export function readTheme(root: HTMLElement): Theme {
  const probe = document.createElement("span");
  probe.hidden = true;
  root.append(probe);
  try {
    const resolve = (variable: string, under: RGB): RGB | null => {
      probe.style.color = `var(${variable})`;
      return parseColour(getComputedStyle(probe).color, under);
    };
    const background = resolve(CHROME_VARIABLES.background, [255, 255, 255]) ?? [255, 255, 255];
    const plotRgb = resolve(CHROME_VARIABLES.plot, background) ?? background;
    const chrome: Chrome = { ...LIGHT };
    for (const key of Object.keys(CHROME_VARIABLES) as (keyof Chrome)[]) {
      const rgb =
        key === "background" ? background : key === "plot" ? plotRgb : resolve(CHROME_VARIABLES[key], plotRgb);
      if (rgb) chrome[key] = hex(rgb);
    }
    const dark = luminance(background) < 0.3;
    const { background: bg, plot, text, line, cursor, outline, accent } = chrome;
    return {
      background: bg,
      plot,
      text,
      line,
      cursor,
      outline,
      accent,
      dark,
      plotRgb,
      ...(dark ? GREYS.dark : GREYS.light),
    };
  } finally {
    probe.remove();
  }
}

/** A key that changes when any colour of the theme does. */
function themeKey(t: Theme): string {
  return JSON.stringify(t);
}

/**
 * Read the theme from `root` now and again whenever the page's may have changed (JupyterLab
 * switching themes, the system's colour scheme, `refresh()` after the widget is attached);
 * `changed` runs when the colours differ from the last read.
 */
export class ThemeWatcher {
  /** The colours this view last drew with. */
  private key: string;

  constructor(
    private root: HTMLElement,
    private changed: () => void,
    bag: Disposers,
  ) {
    // JupyterLab sets these on <body> once a theme's stylesheet has loaded.
    const observer = new MutationObserver(() => this.refresh());
    observer.observe(document.body, {
      attributes: true,
      attributeFilter: ["data-jp-theme-name", "data-jp-theme-light", "class", "style"],
    });
    bag.add(() => observer.disconnect());
    const scheme = window.matchMedia?.("(prefers-color-scheme: dark)");
    if (scheme) bag.listen(scheme, "change", () => this.refresh());
    this.read();
    this.key = themeKey(current);
  }

  /** Read the theme again; redraw (through `changed`) when it differs from what this view drew with. */
  refresh(): void {
    this.read();
    const key = themeKey(current);
    if (key === this.key) return;
    this.key = key;
    this.changed();
  }

  private read(): void {
    if (!this.root.isConnected) return; // nothing is computed for a detached element
    current = readTheme(this.root);
    this.root.dataset.theme = current.dark ? "dark" : "light";
  }
}
