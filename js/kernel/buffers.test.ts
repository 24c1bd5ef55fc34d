import assert from "node:assert/strict";
import { test } from "node:test";
import { float32, typed, unpackCells } from "./buffers";

test("unpacks the kernel's XOR-row runs (bytes written by ipu_nb._widget.lod.pack_cells)", () => {
  const rows = [
    [0, 0, 33, 33, 33, 0, 7],
    [0, 0, 33, 33, 34, 0, 7],
    [1, 0, 33, 33, 34, 0, 0],
  ];
  const packed = [
    new Uint8Array([2, 1, 4, 2, 5]),
    new Uint8Array([3, 1, 1, 1, 1]),
    new Uint8Array([33, 33, 33, 7, 3, 1, 7]),
  ];
  assert.deepEqual(Array.from(unpackCells(3, 7, 5, packed)), rows.flat());
});

test("long gaps and runs use the 5-byte form; rows of four-byte multiples XOR by words", () => {
  const packed = [new Uint8Array([255, 89, 2, 0, 0]), new Uint8Array([255, 87, 2, 0, 0]), new Uint8Array(599).fill(5)];
  const cells = unpackCells(2, 600, 1, packed);
  assert.equal(cells[600], 0);
  assert.ok(cells.subarray(601).every((c) => c === 5));
  assert.ok(cells.subarray(0, 600).every((c) => c === 0));
});

test("malformed runs throw instead of writing past the grid", () => {
  const packed = [new Uint8Array([5]), new Uint8Array([9]), new Uint8Array(9)];
  assert.throws(() => unpackCells(2, 4, 1, packed), /overflow/);
  assert.throws(() => unpackCells(2, 4, 2, [new Uint8Array([1]), new Uint8Array([1]), new Uint8Array(2)]), /truncated/);
});

test("typed arrays view aligned buffers in place and copy unaligned ones", () => {
  const buffer = new ArrayBuffer(13);
  new Float32Array(buffer, 4, 2).set([1.5, -2]);
  const aligned = float32(new DataView(buffer, 4, 8));
  assert.equal(aligned.buffer, buffer);
  assert.deepEqual(Array.from(aligned), [1.5, -2]);
  const bytes = new Uint8Array(buffer);
  bytes.copyWithin(5, 4, 12);
  const shifted = typed(Float32Array, new DataView(buffer, 5, 8));
  assert.notEqual(shifted.buffer, buffer);
  assert.deepEqual(Array.from(shifted), [1.5, -2]);
});
