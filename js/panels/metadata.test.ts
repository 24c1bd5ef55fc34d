import assert from "node:assert/strict";
import { test } from "node:test";
import type { Filters } from "../kernel/types";
import { metadataLabel, parseMetadataText, sameEntry, withMetadata, withoutMetadata } from "./metadata";

const none: Filters = {
  kind: null,
  kernel: null,
  operation: [],
  operation_contains: null,
  tiles: [],
  phases: [],
  metadata: [],
  window: null,
};

test("a pair whose name holds '=' stays a pair", () => {
  const f = withMetadata(none, "a=b", "c");
  assert.deepEqual(f.metadata, [["a=b", "c"]]);
  assert.equal(withMetadata(f, "a=b", "c"), f); // already there
  const g = withMetadata(f, "a", "b=c"); // reads the same joined, is a different filter
  assert.deepEqual(g.metadata, [
    ["a=b", "c"],
    ["a", "b=c"],
  ]);
  assert.deepEqual(withoutMetadata(g, ["a=b", "c"]).metadata, [["a", "b=c"]]);
  assert.ok(!sameEntry(["a", null], ["a", ""]));
});

test("typed text splits at the first '=' and labels join back", () => {
  assert.deepEqual(parseMetadataText("layer=3"), ["layer", "3"]);
  assert.deepEqual(parseMetadataText("a=b=c"), ["a", "b=c"]);
  assert.deepEqual(parseMetadataText("role"), ["role", null]);
  assert.deepEqual(parseMetadataText("role="), ["role", ""]);
  assert.throws(() => parseMetadataText("=x"), /needs a name/);
  assert.equal(metadataLabel(["role", null]), "role");
  assert.equal(metadataLabel(["a=b", "c"]), "a=b=c");
});
