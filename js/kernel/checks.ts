// Run-time shape checks for what the kernel sends: each `Check<T>` returns its input as a
// `T` or throws a `ShapeError` naming the path of the first field that is not one. A check
// written against an interface (`record<SampleInfo>({...})`) must list every field of it
// with a check of the right type, so tsc keeps checks and types in step. The messages'
// checks are generated from the Python protocol (generated.ts) out of these.

export class ShapeError extends Error {}

export type Check<T> = (value: unknown, path: string) => T;

function fail(path: string, expected: string, value: unknown): never {
  const got = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
  throw new ShapeError(`${path}: expected ${expected}, got ${got}`);
}

export const number: Check<number> = (v, path) =>
  typeof v === "number" && Number.isFinite(v) ? v : fail(path, "a finite number", v);

export const integer: Check<number> = (v, path) => (Number.isInteger(v) ? (v as number) : fail(path, "an integer", v));

export const string: Check<string> = (v, path) => (typeof v === "string" ? v : fail(path, "a string", v));

export const boolean: Check<boolean> = (v, path) => (typeof v === "boolean" ? v : fail(path, "true or false", v));

/** Any value (a field the protocol leaves open). */
export const anything: Check<unknown> = (v) => v;

export function literal<T extends string>(...values: T[]): Check<T> {
  return (v, path) =>
    values.includes(v as T) ? (v as T) : fail(path, values.map((x) => JSON.stringify(x)).join(" or "), v);
}

export function nullable<T>(check: Check<T>): Check<T | null> {
  return (v, path) => (v === null ? null : check(v, path));
}

/** A value passing one of `checks` (tried in order); the error gives what each one said. */
export function oneOf<T extends unknown[]>(...checks: { [K in keyof T]: Check<T[K]> }): Check<T[number]> {
  return (v, path) => {
    const problems: string[] = [];
    for (const check of checks) {
      try {
        return check(v, path);
      } catch (error) {
        if (!(error instanceof ShapeError)) throw error;
        problems.push(error.message);
      }
    }
    throw new ShapeError(`${path}: none of its shapes (${problems.join("; ")})`);
  };
}

/** A field that may be absent (the kernel leaves out keys that do not apply). */
export function optional<T>(check: Check<T>): Check<T | undefined> {
  return (v, path) => (v === undefined ? undefined : check(v, path));
}

export function arrayOf<T>(check: Check<T>): Check<T[]> {
  return (v, path) => {
    if (!Array.isArray(v)) fail(path, "an array", v);
    for (let i = 0; i < v.length; i++) check(v[i], `${path}[${i}]`);
    return v as T[];
  };
}

export function tuple<T extends unknown[]>(...checks: { [K in keyof T]: Check<T[K]> }): Check<T> {
  return (v, path) => {
    if (!Array.isArray(v) || v.length !== checks.length) fail(path, `an array of ${checks.length}`, v);
    checks.forEach((check, i) => {
      check(v[i], `${path}[${i}]`);
    });
    return v as T;
  };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An object whose every value passes `check` (keys are free). */
export function recordOf<T>(check: Check<T>): Check<Record<string, T>> {
  return (v, path) => {
    if (!isObject(v)) fail(path, "an object", v);
    for (const key of Object.keys(v)) check(v[key], `${path}.${key}`);
    return v as Record<string, T>;
  };
}

/** An object with (at least) these fields; other fields pass through unchecked. */
export function record<T>(shape: { [K in keyof T]-?: Check<T[K]> }): Check<T> {
  const keys = Object.keys(shape) as (keyof T & string)[];
  return (v, path) => {
    if (!isObject(v)) fail(path, "an object", v);
    for (const key of keys) shape[key](v[key], `${path}.${key}`);
    return v as T;
  };
}

/** One of several object shapes, chosen by the value of its `key` (a tagged union). */
export function tagged<T>(key: string, variants: Record<string, Check<T>>): Check<T> {
  const tags = Object.keys(variants);
  return (v, path) => {
    if (!isObject(v)) fail(path, "an object", v);
    const tag = v[key];
    // biome-ignore lint/suspicious/noPrototypeBuiltins: Object.hasOwn is ES2022; the bundle targets ES2020
    if (typeof tag !== "string" || !Object.prototype.hasOwnProperty.call(variants, tag)) {
      fail(`${path}.${key}`, tags.map((x) => JSON.stringify(x)).join(" or "), tag);
    }
    return variants[tag](v, path);
  };
}
