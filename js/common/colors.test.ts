import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  classColours,
  contrast,
  darkVariant,
  GREYS,
  kernelPalette,
  kindColours,
  LIGHT,
  parseColour,
  type RGB,
  textOn,
  useKernelPalette,
  usePalette,
} from "./colors";

/** The kernel's kind palette as ipu_nb/_model/palette.py writes it (the one table the widget is sent). */
function pythonPalette(): Record<string, string> {
  const source = readFileSync("ipu_nb/_model/palette.py", "utf8");
  const table = /KIND_PALETTE: dict\[str, str\] = \{([^}]*)\}/.exec(source)![1];
  return Object.fromEntries([...table.matchAll(/"(\w+)":\s*"(#[0-9a-f]{6})"/gi)].map((m) => [m[1], m[2]]));
}
const KIND_HEX = pythonPalette();

/** The kernel colours as ipu_nb/_model/palette.py writes them (`KERNEL_PALETTE`, sent as `info.vocabulary.kernel_palette`). */
function pythonKernelPalette(): string[] {
  const source = readFileSync("ipu_nb/_model/palette.py", "utf8");
  const table = /KERNEL_PALETTE: tuple\[str, \.\.\.\] = \(([^)]*)\)/.exec(source)![1];
  return [...table.matchAll(/"(#[0-9a-f]{6})"/gi)].map((m) => m[1]);
}
const KERNEL_HEX = pythonKernelPalette();
const PALETTE = KERNEL_HEX.map((h) => parseColour(h)!);
/** palette.py's `NO_KERNEL_COLOUR`, the grey `charts.timeline` draws "(no kernel)" in. */
const NO_KERNEL_HEX = /NO_KERNEL_COLOUR = "(#[0-9a-f]{6})"/.exec(readFileSync("ipu_nb/_model/palette.py", "utf8"))![1];
const KIND_LIGHT = Object.values(KIND_HEX).map((h) => parseColour(h)!);
const KIND_DARK = KIND_LIGHT.map(darkVariant);

/** CIE L*a*b* of an sRGB colour (D65), written out here as an independent reference. */
function lab([r, g, b]: RGB): [number, number, number] {
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const X = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const Y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const Z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
}
/** ΔE*ab (CIE76): about 2.3 is just noticeable; 20 and more reads as a different colour at a glance. */
const deltaE = (a: RGB, b: RGB) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]));

/** Each theme's plot backgrounds: widget.css's fallback and JupyterLab's (--jp-layout-color1). */
const THEMES = {
  light: {
    ...GREYS.light,
    backgrounds: [
      [250, 250, 250],
      [255, 255, 255],
    ] as RGB[],
  },
  dark: {
    ...GREYS.dark,
    backgrounds: [
      [33, 33, 33],
      [17, 17, 17],
    ] as RGB[],
  },
};

test("'(no kernel)' and 'not matching' are clearly different greys in both themes", () => {
  for (const [name, t] of Object.entries(THEMES)) {
    assert.ok(deltaE(t.grey, t.noKernel) >= 30, `${name}: ΔE ${deltaE(t.grey, t.noKernel).toFixed(1)}`);
    for (const bg of t.backgrounds) {
      assert.ok(deltaE(t.grey, bg) >= 9, `${name}: not-matching grey vanishes into ${bg}`);
      assert.ok(deltaE(t.noKernel, bg) >= 25, `${name}: no-kernel grey too close to ${bg}`);
    }
  }
});

test("sample colours stay apart from each other, the greys and the background in both themes", () => {
  const pairs = (list: readonly RGB[]) => list.flatMap((a, i) => list.slice(i + 1).map((b) => [a, b] as const));
  for (const [a, b] of pairs(PALETTE)) assert.ok(deltaE(a, b) >= 20, `kernel colours ${a} and ${b}`);
  for (const kinds of [KIND_LIGHT, KIND_DARK]) {
    for (const [a, b] of pairs(kinds)) assert.ok(deltaE(a, b) >= 35, `kind colours ${a} and ${b}`);
  }
  for (const [name, t] of Object.entries(THEMES)) {
    for (const c of [...PALETTE, ...(name === "dark" ? KIND_DARK : KIND_LIGHT)]) {
      for (const other of [t.grey, t.noKernel, ...t.backgrounds]) {
        assert.ok(deltaE(c, other) >= 20, `${name}: ${c} vs ${other}: ΔE ${deltaE(c, other).toFixed(1)}`);
      }
    }
  }
  assert.equal(PALETTE.length, 31, "one colour per kernel class");
});

test("the kernel colours are the vocabulary's, and charts.timeline's no-kernel grey is the light theme's", () => {
  assert.deepEqual(kernelPalette(), [], "none before a vocabulary is read");
  assert.deepEqual(classColours("kernel", ["gemm"], "(no kernel)")[1], LIGHT.noKernel, "the neutral grey then");
  useKernelPalette(["#102030", "not a colour", "#405060"]);
  try {
    assert.deepEqual(kernelPalette(), [
      [16, 32, 48],
      [64, 80, 96],
    ]);
    const classes = classColours("kernel", ["gemm", "(no kernel)", "conv", "relu"], "(no kernel)");
    // Legend entry i takes colour i, cycling through the table; the kernel-less class its grey.
    assert.deepEqual(classes.slice(1, 5), [[16, 32, 48], LIGHT.noKernel, [16, 32, 48], [64, 80, 96]]);
    useKernelPalette(KERNEL_HEX);
    assert.deepEqual(classColours("kernel", ["a", "b"], "(no kernel)").slice(1, 3), PALETTE.slice(0, 2));
  } finally {
    useKernelPalette([]);
  }
  assert.deepEqual(parseColour(NO_KERNEL_HEX), GREYS.light.noKernel);
});

test("computed CSS colours parse, composited over what is below", () => {
  assert.deepEqual(parseColour("rgb(1, 2, 3)"), [1, 2, 3]);
  assert.deepEqual(parseColour("rgba(0, 0, 0, 0.5)", [255, 255, 255]), [128, 128, 128]);
  assert.deepEqual(parseColour("rgb(10 20 30 / 100%)"), [10, 20, 30]);
  assert.deepEqual(parseColour("color(srgb 1 0 0.5)"), [255, 0, 128]);
  assert.deepEqual(parseColour("#fa0"), [255, 170, 0]);
  assert.deepEqual(parseColour("#112233"), [17, 34, 51]);
  assert.equal(parseColour("var(--x)"), null);
  assert.equal(parseColour(""), null);
});

test("labels on a colour take whichever of black and white reads better", () => {
  assert.deepEqual(textOn([255, 255, 255]), [0, 0, 0]);
  assert.deepEqual(textOn([20, 20, 60]), [255, 255, 255]);
  for (const c of [...PALETTE, ...KIND_LIGHT, ...KIND_DARK]) assert.ok(contrast(c, textOn(c)) >= 4.5, `${c}`);
  assert.ok(contrast([0, 0, 0], [255, 255, 255]) > 20.9);
  assert.equal(LIGHT.dark, false);
});

test("the palette has every kind, and the widget draws kinds in it, darkened by one rule in the dark theme", () => {
  assert.deepEqual(Object.keys(KIND_HEX).sort(), ["compute", "exchange", "idle", "synchronization"]);
  usePalette({ ...KIND_HEX, bogus: "blue" });
  try {
    const light = kindColours(false);
    const dark = kindColours(true);
    assert.deepEqual(Object.keys(light).sort(), Object.keys(KIND_HEX).sort(), "a malformed entry is left out");
    for (const [kind, hex] of Object.entries(KIND_HEX)) {
      const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
      assert.deepEqual(light[kind], rgb, kind);
      // A quarter of the way to white, channel by channel (written out independently).
      assert.deepEqual(
        dark[kind],
        rgb.map((c) => Math.round(c + (255 - c) / 4)),
        kind,
      );
    }
    // The kind legend's classes follow the palette (class 0 is the theme's "not matching" grey).
    const classes = classColours("kind", ["exchange", "compute"], "(no kernel)");
    assert.deepEqual(classes.slice(1, 3), [light.exchange, light.compute]);
  } finally {
    usePalette({});
  }
  assert.deepEqual(darkVariant([255, 255, 255]), [255, 255, 255]);
  assert.deepEqual(darkVariant([0, 0, 0]), [64, 64, 64]);
});
