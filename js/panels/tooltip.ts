// The hover tooltip: asks the kernel about the sample under the mouse and shows the answer
// to the latest question only (the mouse has moved on from the earlier ones). Profile
// strings in it are neutralised and cut to its width (text.ts); the inspector shows them whole.

import { offsetText } from "../common/clock";
import { clear, el, placeTip } from "../common/dom";
import { grouped, ms } from "../common/format";
import { fontOf, setFittedText } from "../common/text";
import { className, kernelLabel, type Vocabulary } from "../common/vocabulary";
import type { HoverReply, HoverRequest, SampleInfo } from "../kernel/protocol";

/** Widest line of the tooltip (CSS pixels, inside its padding). */
export const TOOLTIP_TEXT_PX = 420;

export interface TooltipHost {
  send(request: HoverRequest): void;
  clockHz(): number;
  /** The clock of the offsets shown (the `clock` trait). */
  clock(): string;
  /** Where the widget's root is on the page (the tooltip is placed relative to it, and kept inside its width). */
  origin(): { left: number; top: number; width?: number };
}

export class Tooltip {
  readonly root = el("div", "ipu-nb-tooltip");
  private latest = 0;
  private client = { x: 0, y: 0 };

  constructor(
    private host: TooltipHost,
    private view: string,
    private words: Vocabulary,
  ) {
    this.root.hidden = true;
  }

  /** The mouse rests on timeline row `row` at offset `x` (page position `clientX`, `clientY`). */
  hover(row: number, x: number, clientX: number, clientY: number): void {
    this.client = { x: clientX, y: clientY };
    this.host.send({ type: "hover", view: this.view, id: ++this.latest, row, x });
  }

  /** The mouse left: hide, and ignore answers still coming. */
  unhover(): void {
    this.latest++;
    if (!this.root.hidden) this.root.hidden = true; // every view change unhovers: touch the DOM only when shown
  }

  reply(msg: HoverReply): void {
    if (msg.view !== this.view || msg.id !== this.latest) return;
    if (msg.sample) this.show(msg.sample, msg);
    else this.root.hidden = true;
  }

  private show(s: SampleInfo, msg: HoverReply): void {
    const tip = this.root;
    clear(tip);
    const c = this.host.clockHz();
    const title = el("div", "ipu-nb-tooltip-title");
    const kernel = el("div", "ipu-nb-tooltip-kernel");
    tip.append(
      title,
      kernel,
      el("div", undefined, `tile ${s.tile} · phase ${s.phase}/${s.epoch}`),
      el(
        "div",
        undefined,
        `${offsetText(s.offset, this.host.clock())} · ${grouped(s.duration)} cycles (${ms(s.duration, c)})`,
      ),
    );
    // Colour mode "activity": the piece drawn under the pointer and the runtime's accounting part there.
    const stretch = ([name, a, b]: [string, number, number], what: string) =>
      el("div", "ipu-nb-tooltip-activity", `${what} ${name} · ${grouped(a)}–${grouped(b)} (${grouped(b - a)} cycles)`);
    if (msg.piece)
      tip.append(stretch([className("activity", msg.piece[0], this.words), msg.piece[1], msg.piece[2]], "drawn as"));
    if (msg.part) tip.append(stretch(msg.part, "counted as"));
    tip.hidden = false; // measured in its own font, which it has once shown
    if (s.operation) setFittedText(title, s.operation, TOOLTIP_TEXT_PX, fontOf(title));
    else title.textContent = "(no operation)";
    const kind = `${s.kind}${s.inactive ? " (inactive)" : ""}`;
    const line = `${kind} · ${s.kernel ? "kernel " : ""}${kernelLabel(s.kernel, this.words)}`;
    setFittedText(kernel, line, TOOLTIP_TEXT_PX, fontOf(kernel));
    placeTip(tip, this.client.x, this.client.y, this.host.origin());
  }
}
