// A check of a tool call's edited arguments against the tool's JSON
// Schema (GET /agent/{aid}/tools), before the confirmation is sent: the
// keywords tool schemas use (type, properties, required,
// additionalProperties, items, enum, const, minimum/maximum,
// minLength/maxLength). A keyword it does not know is not checked: the
// tool still validates its input when it runs, so this only catches the
// usual mistakes early, in the card.

type Schema = { [k: string]: unknown };

const typeOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" && Number.isInteger(v) ? "integer" : typeof v;

function typeMatches(want: string, got: string): boolean {
  return want === got || (want === "number" && got === "integer");
}

// check returns the first way value breaks schema, at path, or "".
export function check(schema: unknown, value: unknown, path = "arguments"): string {
  if (schema === true || schema === undefined || schema === null) return "";
  if (schema === false) return `${path} is not allowed`;
  if (typeof schema !== "object") return "";
  const s = schema as Schema;
  const got = typeOf(value);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (!types.some((t) => typeMatches(t, got))) return `${path} must be ${types.join(" or ")}, not ${got}`;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return `${path} must be one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`;
  }
  if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(value)) return `${path} must be ${JSON.stringify(s.const)}`;
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) return `${path} must be at least ${s.minimum}`;
    if (typeof s.maximum === "number" && value > s.maximum) return `${path} must be at most ${s.maximum}`;
  }
  if (typeof value === "string") {
    const n = [...value].length;
    if (typeof s.minLength === "number" && n < s.minLength) return `${path} must have at least ${s.minLength} characters`;
    if (typeof s.maxLength === "number" && n > s.maxLength) return `${path} must have at most ${s.maxLength} characters`;
  }
  if (got === "array" && s.items !== undefined) {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) {
      const p = check(s.items, items[i], `${path}[${i}]`);
      if (p) return p;
    }
  }
  if (got === "object") {
    const obj = value as Schema;
    const props = (s.properties ?? {}) as Schema;
    for (const k of (s.required ?? []) as string[]) {
      if (!(k in obj)) return `${path}.${k} is required`;
    }
    for (const [k, v] of Object.entries(obj)) {
      if (k in props) {
        const p = check(props[k], v, `${path}.${k}`);
        if (p) return p;
      } else if (s.additionalProperties !== undefined) {
        const p = check(s.additionalProperties, v, `${path}.${k}`);
        if (p) return p;
      }
    }
  }
  return "";
}
