// The kernel's names for what the front end offers (the kinds, groupings, sort orders and
// colourings) and the placeholders it writes for a missing kernel or metadata value. They
// arrive in the `info` trait (`info.vocabulary`) so that no list is copied here.

import { arrayOf, record, recordOf, string } from "../kernel/checks";
import { usePalette } from "./colors";

export interface Vocabulary {
  kinds: string[];
  group_bys: string[];
  sort_bys: string[];
  color_bys: string[];
  /** The name groups, legends and flame graphs give samples without a kernel. */
  no_kernel: string;
  /** The value metadata groups show for samples without an entry of the key. */
  missing: string;
  /** Each kind's colour in the light theme, `{kind: "#rrggbb"}` (ipu_nb.palette()). */
  palette: Record<string, string>;
}

const check = record<Vocabulary>({
  kinds: arrayOf(string),
  group_bys: arrayOf(string),
  sort_bys: arrayOf(string),
  color_bys: arrayOf(string),
  no_kernel: string,
  missing: string,
  palette: recordOf(string),
});

/** Offers nothing: what a kernel that sends no (or a broken) vocabulary gets. */
const NONE: Vocabulary = {
  kinds: [],
  group_bys: [],
  sort_bys: [],
  color_bys: [],
  no_kernel: "",
  missing: "",
  palette: {},
};

/**
 * `info.vocabulary`, checked; without a usable one the controls offer no choices (reported once).
 * Its palette becomes the kind colours everything draws in (colors.ts `usePalette`).
 */
export function vocabularyOf(info: unknown): Vocabulary {
  try {
    const words = check((info as { vocabulary?: unknown } | null)?.vocabulary, "info.vocabulary");
    usePalette(words.palette);
    return words;
  } catch (error) {
    if (!warned) console.warn(`ipu-nb widget: the kernel sent no usable vocabulary (${(error as Error).message})`);
    warned = true;
    return NONE;
  }
}
let warned = false;

/** How a kernel name reads: the kernel's placeholder for none. */
export function kernelLabel(kernel: string, words: Pick<Vocabulary, "no_kernel">): string {
  return kernel || words.no_kernel;
}
