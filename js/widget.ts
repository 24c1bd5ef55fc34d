// ProfileWidget front end: header, controls, legend, overview, timeline, inspector and
// flame graph. Holds no profile: windows, summaries and sample details come from the
// kernel; selections go back through the synced traits (docs/widget-protocol.md). Each
// view is a `WidgetController` (widget/controller.ts), which puts the parts together and
// applies the kernel's messages to them; the folders hold the rest: kernel/ (the protocol
// and the requests), timeline/ (drawing the timeline), panels/ (the parts around it),
// common/ (helpers every part uses).

import "./widget.css";
import "./timeline.css";
import "./selection.css";
import type { Render } from "@anywidget/types";
import type { Traits } from "./kernel/types";
import { WidgetController } from "./widget/controller";

const render: Render<Traits> = ({ model, el }) => new WidgetController(model, el).open();

export default { render };
