import assert from "node:assert/strict";
import { test } from "node:test";
import { parseKernelMessage, REPLY_TYPES, REQUEST_TYPES, type ToFrontEnd } from "./protocol";

// Shapes as ipu_nb/_widget/widget.py sends them (copied from a run on the small demo profile).
const bytes = (...lengths: number[]) => lengths.map((n) => new DataView(new ArrayBuffer(n)));
const sample = {
  sample: 3338,
  tile: 66,
  kind: "compute",
  inactive: false,
  operation: "MLP layer 0",
  kernel: "gemm",
  phase: 215,
  epoch: 0,
  offset: 4711476,
  duration: 33069,
  local_index: 323,
  start: 4292599413,
  end: 4292632482,
  matched: true,
};
const raw = {
  type: "window",
  view: "v",
  id: 2,
  color_by: "kind",
  filtered: false,
  mode: "raw",
  start: 0,
  end: 2000,
  count: 128,
  labels: ["sync", "exchange"],
};
const lod = {
  type: "window",
  view: "v",
  id: 1,
  color_by: "kind",
  filtered: true,
  mode: "lod",
  start: 0,
  end: 14154224,
  rows: 64,
  bins: 800,
  planes: 1,
  classes: [1],
  count: 64320,
  compressed: "xor-runs",
  runs: 2480,
};
const valid: [unknown, DataView[]][] = [
  [raw, bytes(512, 512, 256, 128, 512, 512)],
  [{ ...raw, labels: undefined }, bytes(512, 512, 256, 128, 512)],
  [lod, bytes(2696, 2484, 11272)],
  [{ ...lod, compressed: null, runs: undefined, rows: 2, bins: 3 }, bytes(6)],
  [{ type: "overview", bins: 1024, span: 14154224, planes: 3, color_by: "kind" }, bytes(3, 12288)],
  [{ type: "hover", view: "v", id: 4, sample }, []],
  [{ type: "hover", view: "v", id: 5, sample: null }, []],
  [{ type: "panel", at: null, selected: null }, []],
  [
    {
      type: "panel",
      at: {
        at: 4718074,
        count: 64,
        tiles: 64,
        kinds: [
          ["compute", 56],
          ["synchronization", 8],
        ],
        operations: [["op", 1]],
        kernels: [["(no kernel)", 8]],
        metadata: [["a=b", "c", 3]],
      },
      selected: { ...sample, metadata: [["layer", "0"]], activities: [], roles: {}, parts: [] },
    },
    [],
  ],
  [
    {
      type: "flame",
      total: 905801032,
      levels: ["kind", "kernel", "phase", "operation"],
      nodes: [
        { name: "all", level: 0, value: 905801032, parent: -1, path: {} },
        { name: "compute", level: 1, value: 551685720, parent: 0, path: { kind: "compute" } },
        { name: "phase 3/0", level: 3, value: 5, parent: 1, path: { kind: "compute", phase: 3 } },
        { name: "…", level: 1, value: 7, parent: 0, path: null },
      ],
      metadata: [{ name: "layer", value: "0", cycles: 12, samples: 2 }],
    },
    [],
  ],
  [
    {
      type: "groups",
      id: null,
      group_by: "kernel",
      error: null,
      rows: [
        {
          name: "(no kernel)",
          dimensions: {},
          sample_count: 47168,
          phase_cycles: 14223709,
          work_cycles: 354115312,
          average_active_tiles: 24.89613025688307,
        },
      ],
    },
    [],
  ],
  [{ type: "groups", id: 8, group_by: "metadata", error: "needs a key", rows: [] }, []],
  [{ type: "error", message: "MessageError: unknown message type 'bogus'" }, []],
  [{ type: "error", request: "window", id: 3, view: "v", message: "boom" }, []],
];

test("every message the kernel sends passes, typed by its type", () => {
  const seen = new Set<ToFrontEnd["type"]>();
  for (const [content, buffers] of valid) {
    const parsed = parseKernelMessage(content, buffers);
    assert.ok(parsed.ok, `${JSON.stringify(content)}: ${parsed.ok ? "" : parsed.problem}`);
    assert.equal(parsed.message, content);
    seen.add(parsed.message.type);
  }
  assert.deepEqual([...seen].sort(), ["error", "flame", "groups", "hover", "overview", "panel", "window"]);
});

const refused = (content: unknown, buffers: DataView[] = []) => {
  const parsed = parseKernelMessage(content, buffers);
  assert.ok(!parsed.ok, `accepted ${JSON.stringify(content)}`);
  return parsed;
};

test("unknown types and non-objects are refused, saying what they are", () => {
  assert.match(refused({ type: "bogus" }).problem, /unknown message type "bogus"/);
  assert.match(refused({ kind: "window" }).problem, /unknown message type undefined/);
  assert.match(refused(null).problem, /must be an object, got null/);
  assert.match(refused([raw]).problem, /must be an object/);
  assert.match(refused("window").problem, /must be an object, got string/);
  assert.match(refused({ type: "toString" }).problem, /unknown message type/); // not an inherited key
});

test("a bad field is refused with its path, nested ones too", () => {
  assert.match(
    refused({ ...raw, count: "128" }, bytes(512, 512, 256, 128, 512, 512)).problem,
    /window\.count: expected an integer, got string/,
  );
  assert.match(refused({ ...raw, mode: "vector" }).problem, /window\.mode: expected "raw" or "lod", got string/);
  assert.match(
    refused({ type: "hover", view: "v", id: 1, sample: { ...sample, tile: 1.5 } }).problem,
    /hover\.sample\.tile/,
  );
  const nodes = [{ name: "all", level: 0, value: "9", parent: -1, path: {} }];
  assert.match(
    refused({ type: "flame", total: 9, levels: ["kind"], nodes, metadata: [] }).problem,
    /flame\.nodes\[0\]\.value: expected an integer/,
  );
  assert.match(refused({ type: "error" }).problem, /error\.message: expected a string, got undefined/);
  assert.match(
    refused({ type: "overview", bins: 4, span: 9, planes: 2, color_by: "kind" }).problem,
    /expected 2 buffers, got 0/,
  );
  assert.match(
    refused({ type: "groups", id: null, group_by: "kind", error: null, rows: [{ name: "x" }] }).problem,
    /rows\[0\]\.dimensions/,
  );
});

test("window buffers must match the header's layout; the address survives for flow control", () => {
  let p = refused(raw, bytes(512, 512, 256, 128, 512)); // labels announced, their index missing
  assert.match(p.problem, /expected 6 buffers, got 5/);
  assert.deepEqual([p.type, p.view, p.id], ["window", "v", 2]);
  p = refused(raw, bytes(512, 512, 255, 128, 512, 512));
  assert.match(p.problem, /window buffer 2: expected 256 bytes, got 255/);
  assert.match(refused({ ...lod, runs: undefined }, bytes(1, 1, 1)).problem, /runs/);
  assert.match(refused({ ...lod, compressed: null, rows: 2, bins: 3 }, bytes(5)).problem, /expected 6 bytes/);
  assert.match(refused({ ...lod, compressed: "zlib" }, bytes(1, 1, 1)).problem, /compressed/);
});

test("never throws, whatever arrives", () => {
  const hostile = Object.defineProperty({}, "type", {
    get() {
      throw new Error("no");
    },
  });
  const values: unknown[] = [
    undefined,
    0,
    NaN,
    true,
    {},
    { type: 5 },
    { type: "window" },
    { type: "panel" },
    hostile,
    { type: "flame", total: 1, nodes: null, metadata: [] },
    { type: "window", mode: "raw", count: -1 },
  ];
  for (const v of values) assert.equal(parseKernelMessage(v, []).ok, false);
  assert.equal(parseKernelMessage({ ...raw, count: Infinity }, []).ok, false);
});

test("docs/widget-protocol.md describes every message type both ways", async () => {
  const { readFileSync } = await import("node:fs");
  const doc = readFileSync("docs/widget-protocol.md", "utf8");
  const listed = (type: string) => doc.includes(`| \`${type}\` |`) || doc.includes(`### \`${type}\``);
  assert.deepEqual(REQUEST_TYPES, [
    "window",
    "hover",
    "pick",
    "groups",
    "hello",
    "blocks",
    "search",
    "fit",
    "code",
    "finding",
  ]);
  for (const type of [...REQUEST_TYPES, ...REPLY_TYPES]) assert.ok(listed(type), `${type} is not described`);
  assert.equal(REPLY_TYPES.length, 13);
});

test("block replies, the replies closing block requests, search matches and fits are checked like the rest", () => {
  const block = {
    type: "window",
    view: "v",
    id: 3,
    color_by: "kind",
    filtered: false,
    mode: "lod",
    start: 0,
    end: 512,
    rows: 2,
    bins: 512,
    planes: 1,
    classes: [1],
    count: 9,
    compressed: null,
    level: 0,
    block: 0,
  };
  assert.ok(parseKernelMessage(block, [new DataView(new ArrayBuffer(1024))]).ok);
  assert.equal(parseKernelMessage({ ...block, level: 1.5 }, [new DataView(new ArrayBuffer(1024))]).ok, false);
  const done = { type: "blocks", view: "v", id: 3, stale: false, count: 9, matched: 0, cost_ms: [1.25] };
  assert.ok(parseKernelMessage(done, []).ok);
  assert.equal(parseKernelMessage({ ...done, cost_ms: ["x"] }, []).ok, false);
  const search = { type: "search", id: 1, text: "gemm", case_sensitive: false, count: 10, sent: 2 };
  const buffers = [16, 16, 4, 8].map((n) => new DataView(new ArrayBuffer(n)));
  assert.ok(parseKernelMessage(search, buffers).ok);
  assert.equal(parseKernelMessage(search, buffers.slice(0, 3)).ok, false);
  assert.equal(parseKernelMessage({ ...search, sent: 3 }, buffers).ok, false);
  assert.ok(parseKernelMessage({ type: "fit", id: 2, view: [5, 90] }, []).ok);
  assert.ok(parseKernelMessage({ type: "fit", id: 2, view: null }, []).ok);
  assert.equal(parseKernelMessage({ type: "fit", id: 2, view: [5] }, []).ok, false);
});
