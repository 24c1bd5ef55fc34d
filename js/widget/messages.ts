// Which part shows each side view the kernel sends (the group table, the flame graph, the
// overview, …). The two that change the controller's own state, the inspector's panel and a
// fit's answer, are the controller's (controller.ts).

import { decodeBuffers } from "../kernel/buffers";
import { LAYOUTS } from "../kernel/generated";
import type { SideMessage } from "../kernel/inbox";
import { type FitReply, type PanelMessage, unhandled } from "../kernel/protocol";
import type { Parts } from "./parts";

/** The side views a part shows as they come. */
export type PartMessage = Exclude<SideMessage, PanelMessage | FitReply>;

/** Give `msg` to the part that shows it; an error goes to the status line and the root's dataset. */
export function deliver(parts: Parts, root: HTMLElement, msg: PartMessage, buffers: DataView[]): void {
  switch (msg.type) {
    case "overview":
      parts.overview.setShares({
        bins: msg.bins,
        colorBy: msg.color_by,
        ...decodeBuffers(LAYOUTS.overview_shares, msg, buffers),
      });
      break;
    case "groups":
      parts.groups.set(msg);
      parts.groupsNote.hidden = !msg.area;
      if (msg.area) parts.areaTimer.show("groups");
      break;
    case "flame":
      parts.flame.set(msg);
      if (msg.area) parts.areaTimer.show("flame");
      break;
    case "area":
      parts.areaPanel.set(msg);
      if (msg.selection) parts.areaTimer.show("area");
      break;
    case "highlight":
      parts.highlights.set(msg, buffers);
      break;
    case "code":
      parts.codeCopy.reply(msg).catch((err) => parts.status.error(`error showing the code: ${err}`));
      break;
    case "search":
      parts.search.reply(msg, buffers);
      break;
    case "hover":
      parts.tooltip.reply(msg);
      break;
    case "error":
      parts.status.error(`error: ${msg.message}`);
      root.dataset.error = msg.message;
      break;
    default:
      unhandled(msg);
  }
}
