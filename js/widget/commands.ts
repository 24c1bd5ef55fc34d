// What each shortcut does (keys.ts has the keys: the key handler and the help read the same list).

import { unhandled } from "../kernel/protocol";
import type { BaselineToggle } from "../panels/baseline";
import type { Help } from "../panels/help";
import type { Search } from "../panels/search";
import type { AreaSelection } from "../timeline/selection";
import type { Timeline } from "../timeline/timeline";
import type { ViewState } from "../timeline/viewstate";
import type { KeyAction } from "./keys";

/** What the shortcuts act on: the parts, and what needs the widget's own state. */
export interface Commands {
  readonly views: ViewState;
  readonly parts: {
    readonly timeline: Timeline;
    readonly area: AreaSelection;
    readonly search: Search;
    readonly help: Help;
    readonly baselineToggle: BaselineToggle;
  };
  /** Zoom to fit the selected sample or search hit when the latest focus was one, else what the filters match. */
  fitFocus(): void;
  /** Zoom to fit the samples matching the filters. */
  fitMatching(): void;
  /** Pin the selected sample's tile to the top (again: unpin). */
  pinSelected(): void;
  /** Add a marker at the selected area, else at the cursor (`marker_rows`). */
  addMarker(): void;
}

export function perform(c: Commands, action: KeyAction): void {
  const { timeline, area, search, help, baselineToggle } = c.parts;
  if (typeof action === "object") {
    if ("zoom" in action) c.views.zoom(action.zoom);
    else if ("pan" in action) c.views.pan(action.pan);
    else if ("rows" in action) timeline.zoomRows(action.rows);
    else timeline.scrollPages(action.scroll);
    return;
  }
  switch (action) {
    case "reset":
      c.views.reset();
      break;
    case "escape": // one thing at a time: the help, the ruler, the area, the search, else the whole profile
      if (help.shown) help.hide();
      else if (timeline.clearRuler()) break;
      else if (area.clear()) break;
      else if (search.matches) search.clear();
      else c.views.reset();
      break;
    case "area-tool":
      area.toggleTool();
      break;
    case "fit":
      c.fitFocus();
      break;
    case "fit-filters":
      c.fitMatching();
      break;
    case "search":
      search.focus();
      break;
    case "next":
      search.go(1);
      break;
    case "previous":
      search.go(-1);
      break;
    case "pin":
      c.pinSelected();
      break;
    case "help":
      help.toggle();
      break;
    case "marker":
      c.addMarker();
      break;
    case "baseline":
      baselineToggle.flip();
      break;
    default:
      unhandled(action);
  }
}
