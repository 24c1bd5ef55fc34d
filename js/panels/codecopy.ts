// "Copy as code": the kernel writes the Python that reproduces the view (`widget.to_code()`),
// it goes to the clipboard (navigator.clipboard), and a panel shows it; where the clipboard
// refuses (no secure context, no permission), the code is left selected in that panel's text
// area for Ctrl+C.

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import type { CodeReply, ToKernel } from "../kernel/protocol";

export class CodeCopy {
  readonly button = el("button", "ipu-nb-button ipu-nb-copy-code", "copy as code");
  readonly panel = el("div", "ipu-nb-code-panel");
  private note = el("span", "ipu-nb-code-note");
  private text = el("textarea", "ipu-nb-code-text");
  private latest = 0;

  constructor(
    private send: (message: ToKernel) => void,
    bag: Disposers,
  ) {
    this.button.type = "button";
    this.button.title = "Copy the Python that reproduces this view (widget.to_code())";
    this.text.readOnly = true;
    this.text.spellcheck = false;
    this.text.rows = 14;
    const close = el("button", "ipu-nb-button ipu-nb-code-close", "×");
    close.type = "button";
    close.title = "Close";
    const head = el("div", "ipu-nb-code-head");
    head.append(this.note, close);
    this.panel.append(head, this.text);
    this.panel.hidden = true;
    bag.listen(this.button, "click", () => this.ask());
    bag.listen(close, "click", () => (this.panel.hidden = true));
  }

  private ask(): void {
    this.note.textContent = "Writing the code…";
    this.send({ type: "code", id: ++this.latest });
  }

  /** The kernel's code: shown, and copied to the clipboard (or left selected to copy by hand). */
  async reply(msg: CodeReply): Promise<void> {
    if (msg.id !== this.latest) return;
    this.text.value = msg.code;
    this.panel.hidden = false;
    this.panel.dataset.copied = "pending";
    let copied = false;
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard here");
      await navigator.clipboard.writeText(msg.code);
      copied = true;
    } catch {
      copied = false;
    }
    if (msg.id !== this.latest) return;
    const lines = msg.code.split("\n").length - 1;
    this.panel.dataset.copied = String(copied);
    if (copied) {
      this.note.textContent = `Copied ${lines} lines of Python to the clipboard.`;
    } else {
      this.note.textContent =
        "The clipboard is not available here: the code is selected, press Ctrl+C (⌘C) to copy it.";
      this.text.focus();
      this.text.select();
    }
  }
}
