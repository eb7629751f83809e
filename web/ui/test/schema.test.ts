// The card's check of edited arguments against a tool's JSON Schema.
import assert from "node:assert/strict";
import { test } from "node:test";
import { check } from "../src/schema.ts";

const note = {
  type: "object",
  properties: { text: { type: "string", minLength: 1 }, tags: { type: "array", items: { type: "string" } }, n: { type: "integer", minimum: 0 } },
  required: ["text"],
  additionalProperties: false,
};

test("arguments that fit the schema pass", () => {
  assert.equal(check(note, { text: "milk" }), "");
  assert.equal(check(note, { text: "milk", tags: ["a"], n: 3 }), "");
  assert.equal(check(undefined, { anything: 1 }), "", "no schema: nothing to check");
  assert.equal(check({ type: "number" }, 2), "", "an integer is a number");
});

test("each way to break it is named", () => {
  assert.equal(check(note, {}), "arguments.text is required");
  assert.equal(check(note, { text: 42 }), "arguments.text must be string, not integer");
  assert.equal(check(note, { text: "" }), "arguments.text must have at least 1 characters");
  assert.equal(check(note, { text: "x", tags: ["a", 1] }), "arguments.tags[1] must be string, not integer");
  assert.equal(check(note, { text: "x", n: -1 }), "arguments.n must be at least 0");
  assert.equal(check(note, { text: "x", n: 1.5 }), "arguments.n must be integer, not number");
  assert.equal(check(note, { text: "x", extra: true }), "arguments.extra is not allowed");
  assert.equal(check({ enum: ["a", "b"] }, "c"), 'arguments must be one of "a", "b"');
  assert.equal(check({ type: ["string", "null"] }, 1), "arguments must be string or null, not integer");
});
