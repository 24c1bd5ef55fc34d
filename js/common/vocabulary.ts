// The kernel's names for what the front end offers (the kinds, groupings, sort orders and
// colourings) and the placeholders it writes for a missing kernel or metadata value. They
// arrive in the `info` trait (`info.vocabulary`) so that no list is copied here.

import { checkVocabularyInfo, type VocabularyInfo } from "../kernel/generated";
import { useKernelPalette, usePalette } from "./colors";

/** `info.vocabulary` (protocol.py's `VocabularyInfo`, generated): lists, placeholders and the kind palette. */
export type Vocabulary = VocabularyInfo;

/** Offers nothing: what a kernel that sends no (or a broken) vocabulary gets. */
const NONE: Vocabulary = {
  kinds: [],
  group_bys: [],
  sort_bys: [],
  color_bys: [],
  flame_hierarchies: [],
  no_kernel: "",
  missing: "",
  accounting_parts: {},
  palette: {},
  kernel_palette: [],
  activity_palette: {},
  activity_labels: {},
  color_by_labels: {},
};

/**
 * `info.vocabulary`, checked; without a usable one the controls offer no choices (reported once).
 * Its palettes become the colours everything draws kinds, exchange activities and kernels in (colors.ts `usePalette`,
 * `useKernelPalette`).
 */
export function vocabularyOf(info: unknown): Vocabulary {
  try {
    const words = checkVocabularyInfo((info as { vocabulary?: unknown } | null)?.vocabulary, "info.vocabulary");
    usePalette({ ...words.palette, ...words.activity_palette });
    useKernelPalette(words.kernel_palette);
    return words;
  } catch (error) {
    if (!warned) console.warn(`ipu-nb widget: the kernel sent no usable vocabulary (${(error as Error).message})`);
    warned = true;
    return NONE;
  }
}
let warned = false;

/** How colour mode `mode` names its class `name` in the legend (colour mode "activity": the runtime's names). */
export function className(mode: string, name: string, words: Pick<Vocabulary, "activity_labels">): string {
  return mode === "activity" ? (words.activity_labels[name] ?? name) : name;
}

/** How a kernel name reads: the kernel's placeholder for none. */
export function kernelLabel(kernel: string, words: Pick<Vocabulary, "no_kernel">): string {
  return kernel || words.no_kernel;
}
