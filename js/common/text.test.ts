import assert from "node:assert/strict";
import { test } from "node:test";
import { displayText, fitText } from "./text";

/** A context whose text is 6 px a code point, 10 px for wide (CJK, emoji) ones; counts its measurements. */
function fakeContext(font = "12px sans-serif") {
  const ctx = {
    font,
    calls: 0,
    measureText(text: string) {
      ctx.calls++;
      let width = 0;
      for (const ch of text) width += ch.codePointAt(0)! > 0x2e80 ? 10 : 6;
      return { width };
    },
  };
  return ctx as unknown as CanvasRenderingContext2D & { calls: number };
}

/** An independent statement of what must never be shown raw. */
function invisible(cp: number): boolean {
  return (
    cp <= 0x1f ||
    (cp >= 0x7f && cp <= 0x9f) ||
    (cp >= 0xd800 && cp <= 0xdfff) ||
    cp === 0xad ||
    cp === 0x61c ||
    cp === 0x200b ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    cp === 0xfeff ||
    cp === 0x200e ||
    cp === 0x200f ||
    (cp >= 0x2028 && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    (cp >= 0xfdd0 && cp <= 0xfdef) ||
    (cp & 0xfffe) === 0xfffe
  );
}

const ORDINARY = [
  "gemm_f32",
  "café crème",
  "矩阵乘法",
  "🚀 fused 👩\u200d👩\u200d👧 ✔\ufe0f",
  "ConvPartial<half,float>",
  "C:\\models\\bert",
  "",
];

test("ordinary names are shown exactly as they are", () => {
  for (const s of ORDINARY) assert.equal(displayText(s), s);
});

test("bidi controls and other invisible characters become visible escapes", () => {
  // "exe.lenrek_mmeg" after a right-to-left override reads as "gemm_kernel.exe".
  assert.equal(displayText("\u202eexe.lenrek_mmeg"), "\\u{202e}exe.lenrek_mmeg");
  assert.equal(displayText("a\u2066b\u2069c"), "a\\u{2066}b\\u{2069}c");
  assert.equal(displayText("\u200e\u200f\u061c"), "\\u{200e}\\u{200f}\\u{61c}");
  assert.equal(displayText("ge\u200bmm\u2060\ufeff\u00ad"), "ge\\u{200b}mm\\u{2060}\\u{feff}\\u{ad}");
  assert.equal(displayText("tab\tnew\nline"), "tab\\u{9}new\\u{a}line");
  assert.equal(displayText("x\u2028y"), "x\\u{2028}y");
  assert.equal(displayText("\ud800 lone"), "\\u{d800} lone");
  assert.equal(displayText("\u{10ffff}"), "\\u{10ffff}");
  for (let cp = 0; cp < 0x11000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const shown = displayText(String.fromCodePoint(cp));
    for (const ch of shown) assert.ok(!invisible(ch.codePointAt(0)!), `U+${cp.toString(16)} shown raw`);
    assert.equal(shown !== String.fromCodePoint(cp), invisible(cp), `U+${cp.toString(16)}`);
  }
});

test("the escape is injective: a literal backslash-u-brace never reads as an escape", () => {
  const tricky = [
    "\x01",
    "\\u{1}",
    "\\\x01",
    "\\\\u{1}",
    "\\",
    "\\\\",
    "u{1}",
    "\\x",
    "\u202e",
    "\\u{202e}",
    "\\\u202e",
  ];
  const shown = tricky.map(displayText);
  assert.equal(new Set(shown).size, tricky.length, JSON.stringify(shown));
  assert.equal(displayText("\\u{1}"), "\\\\u{1}");
  assert.equal(displayText("C:\\x"), "C:\\x"); // backslashes before anything else stay single
});

test("fitText keeps what fits and cuts the rest with an ellipsis, between code points", () => {
  const ctx = fakeContext();
  assert.equal(fitText(ctx, "gemm", 24), "gemm");
  const cut = fitText(ctx, "gemm_f32_accumulate", 60);
  assert.equal(cut, "gemm_f32_…");
  assert.ok(ctx.measureText(cut).width <= 60);
  // The longest head that fits: one more character would not.
  assert.ok(ctx.measureText("gemm_f32_a…").width > 60);
  assert.equal(fitText(ctx, "矩阵乘法矩阵", 36), "矩阵乘…");
  assert.equal(fitText(ctx, "🚀🚀🚀🚀", 26), "🚀🚀…"); // never half a surrogate pair
  assert.equal(fitText(ctx, "abcdef", 5), "");
  assert.equal(fitText(ctx, "abcdef", 6), "…");
  assert.equal(fitText(ctx, "abc", 0), "");
});

test("fitText shows the name neutralised and never cuts inside an escape", () => {
  const ctx = fakeContext();
  const name = "\u202eexe.lenrek_mmeg";
  assert.equal(fitText(ctx, name, 1000), "\\u{202e}exe.lenrek_mmeg");
  for (let px = 6; px < 150; px += 3) {
    const cut = fitText(ctx, name, px);
    assert.ok(ctx.measureText(cut).width <= px, `${px}: ${cut}`);
    assert.ok(!cut.includes("\u202e"));
    if (cut.length > 1 && cut !== displayText(name)) {
      assert.ok(cut.endsWith("…"));
      assert.ok(cut.startsWith("\\u{202e}"), `${px}: ${cut}`); // the whole escape or nothing of the name
    }
  }
});

test("fitText answers from its cache and measures a huge name a few times only", () => {
  const ctx = fakeContext("11px test-cache");
  const huge = `op_${"x".repeat(200_000)}`;
  const first = fitText(ctx, huge, 300);
  assert.ok(first.endsWith("…") && ctx.measureText(first).width <= 300);
  const calls = ctx.calls;
  assert.ok(calls < 40, `${calls} measurements`);
  assert.equal(fitText(ctx, huge, 300), first);
  assert.equal(ctx.calls, calls, "the second answer was measured again");
  ctx.font = "20px test-cache";
  fitText(ctx, huge, 300);
  assert.ok(ctx.calls > calls, "another font is measured anew");
});
