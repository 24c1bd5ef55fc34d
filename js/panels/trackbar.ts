// The bar above the timeline: the search box, the tile order, vertical zoom, pins, and what
// the rows show ("1,472 tiles · 3 per row" when several tiles share a pixel row).

import type { Disposers } from "../common/disposers";
import { el } from "../common/dom";
import { grouped, plural } from "../common/format";
import { type Layout, ORDER_LABELS, TILE_ORDERS, type TileOrder } from "../timeline/tracks";

export interface TrackBarHost {
  setOrder(order: TileOrder): void;
  zoomRows(factor: number): void;
  unpinAll(): void;
  help(): void;
}

export class TrackBar {
  readonly root = el("div", "ipu-nb-trackbar");
  private order = el("select", "ipu-nb-select ipu-nb-order");
  private rows = el("span", "ipu-nb-rows-note");
  private unpin = el("button", "ipu-nb-button ipu-nb-unpin", "unpin all");

  constructor(host: TrackBarHost, search: HTMLElement, bag: Disposers) {
    const button = (text: string, title: string, onClick: () => void, cls = "") => {
      const b = el("button", `ipu-nb-button ${cls}`.trim(), text);
      b.type = "button";
      b.title = title;
      bag.listen(b, "click", onClick);
      return b;
    };
    this.order.title = "Order of the tile rows";
    this.order.append(...TILE_ORDERS.map((o) => new Option(`tiles by ${ORDER_LABELS[o]}`, o)));
    bag.listen(this.order, "change", () => host.setOrder(this.order.value as TileOrder));
    this.unpin.type = "button";
    this.unpin.title = "Unpin every pinned tile";
    this.unpin.hidden = true;
    bag.listen(this.unpin, "click", () => host.unpinAll());
    this.root.append(
      search,
      this.order,
      button("rows −", "Fewer, taller tile rows (])", () => host.zoomRows(0.5), "ipu-nb-rows-in"),
      button("rows +", "More, thinner tile rows ([)", () => host.zoomRows(2), "ipu-nb-rows-out"),
      this.rows,
      this.unpin,
      button("?", "Shortcuts (?)", () => host.help(), "ipu-nb-help-button"),
    );
  }

  /** Show what the rows hold now. */
  sync(layout: Layout, order: TileOrder, pinned: number): void {
    this.order.value = order;
    const shown = Math.min(layout.tiles, (layout.pinnedRows + layout.scrolledRows) * layout.perRow);
    const first = layout.scroll + 1;
    const scrolled =
      shown < layout.tiles
        ? ` · rows ${grouped(first)}–${grouped(Math.min(layout.tiles, layout.scroll + layout.scrolledRows * layout.perRow))}`
        : "";
    const per = layout.perRow > 1 ? ` · ${layout.perRow} tiles per row` : "";
    this.rows.textContent = `${plural(layout.tiles, "tile")}${scrolled}${per}`;
    this.rows.title =
      layout.perRow > 1
        ? `Rows thinner than a pixel are merged: each row shows ${layout.perRow} tiles, the strongest cell of each bin`
        : "One tile per row";
    this.rows.dataset.perRow = String(layout.perRow);
    this.rows.dataset.rowPx = String(layout.rowPx);
    this.rows.dataset.inView = String(layout.inView);
    this.unpin.hidden = pinned === 0;
    this.unpin.textContent = `unpin ${pinned}`;
  }
}
