import assert from "node:assert/strict";
import { test } from "node:test";
import { type Commands, perform } from "./commands";
import { SHORTCUTS } from "./keys";

/** A stand-in for the controller that records each call, with what Escape would find open. */
function recorder(open: { help?: boolean; ruler?: boolean; area?: boolean; search?: boolean } = {}) {
  const calls: string[] = [];
  const note =
    (name: string, result?: unknown) =>
    (...args: unknown[]) => {
      calls.push(args.length ? `${name}(${args.join(",")})` : name);
      return result;
    };
  const c = {
    views: { zoom: note("zoom"), pan: note("pan"), reset: note("reset") },
    parts: {
      timeline: {
        zoomRows: note("zoomRows"),
        scrollPages: note("scrollPages"),
        clearRuler: note("clearRuler", !!open.ruler),
      },
      area: { clear: note("clearArea", !!open.area), toggleTool: note("toggleTool") },
      search: { matches: open.search ? {} : null, clear: note("clearSearch"), focus: note("focus"), go: note("go") },
      help: { shown: !!open.help, hide: note("hideHelp"), toggle: note("toggleHelp") },
      baselineToggle: { flip: note("flip") },
    },
    fitFocus: note("fitFocus"),
    fitMatching: note("fitMatching"),
    pinSelected: note("pinSelected"),
  };
  return { commands: c as unknown as Commands, calls };
}

test("Escape closes one thing at a time: the help, the ruler, the area, the search, else the whole profile", () => {
  const cases: [Parameters<typeof recorder>[0], string[]][] = [
    [{ help: true, ruler: true, area: true, search: true }, ["hideHelp"]],
    [{ ruler: true, area: true, search: true }, ["clearRuler"]],
    [{ area: true, search: true }, ["clearRuler", "clearArea"]],
    [{ search: true }, ["clearRuler", "clearArea", "clearSearch"]],
    [{}, ["clearRuler", "clearArea", "reset"]],
  ];
  for (const [open, expected] of cases) {
    const { commands, calls } = recorder(open);
    perform(commands, "escape");
    assert.deepEqual(calls, expected, JSON.stringify(open));
  }
});

test("each shortcut's action reaches the part it names", () => {
  const expected: Record<string, string> = {
    '{"zoom":0.5}': "zoom(0.5)",
    '{"pan":-0.25}': "pan(-0.25)",
    '{"rows":2}': "zoomRows(2)",
    '{"scroll":-0.25}': "scrollPages(-0.25)",
    '{"scroll":1}': "scrollPages(1)",
    '"reset"': "reset",
    '"area-tool"': "toggleTool",
    '"fit"': "fitFocus",
    '"fit-filters"': "fitMatching",
    '"search"': "focus",
    '"next"': "go(1)",
    '"previous"': "go(-1)",
    '"pin"': "pinSelected",
    '"help"': "toggleHelp",
    '"baseline"': "flip",
  };
  for (const { action } of SHORTCUTS) {
    const key = JSON.stringify(action);
    if (!(key in expected)) continue;
    const { commands, calls } = recorder();
    perform(commands, action);
    assert.deepEqual(calls, [expected[key]], key);
  }
  const named = new Set(SHORTCUTS.map((s) => JSON.stringify(s.action)));
  for (const key of Object.keys(expected)) assert.ok(named.has(key), `${key} is a shortcut`);
});
