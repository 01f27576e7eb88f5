import type { RawTool } from '../listings/canonical.js';
import { isObject } from '../is-object.js';

/**
 * What counts as a real change of a tool's description or input schema (docs/design.md §4): the
 * escalation of a relaxation, and the near-identical renames, look only at this. Schema
 * generators churn `$schema`, `additionalProperties`, integer bounds at
 * ±Number.MAX_SAFE_INTEGER and the order of `required`; descriptions gain a trailing space
 * or a path that differs by machine. None of that changes what a call means.
 */

/** A path as a machine prints it: absolute, home-relative or a drive letter. */
const MACHINE_PATH = /^(?:[A-Za-z]:[\\/]|\/|~\/)[^\s]*$/;

/** A description as the words that carry meaning: whitespace and machine paths set aside. */
export function descriptionWords(value: unknown): string[] {
  if (typeof value !== 'string') return value === undefined ? [] : [JSON.stringify(value)];
  return value
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => {
      const bare = word.replace(/^["'`(]+|["'`),.;:]+$/g, '');
      return MACHINE_PATH.test(bare) && bare.length > 1 ? '<path>' : word;
    });
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, index) => word === b[index]);
}

export function descriptionChangedSubstantively(before: unknown, after: unknown): boolean {
  return !sameWords(descriptionWords(before), descriptionWords(after));
}

type JsonObject = Record<string, unknown>;

const MAX_DEPTH = 12;

/** A local `$ref` (`#/$defs/X`, `#/definitions/X`) resolved against the root schema. */
function resolve(schema: JsonObject, root: JsonObject, depth: number): JsonObject {
  let current = schema;
  for (let hops = 0; hops < 8 && typeof current['$ref'] === 'string'; hops++) {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(current['$ref']);
    const defs = match ? root[match[1]!] : undefined;
    const target = isObject(defs) ? defs[decodeURIComponent(match![2]!)] : undefined;
    if (!isObject(target) || depth > MAX_DEPTH) break;
    current = target;
  }
  return current;
}

/** The types a schema admits, from `type` and from the branches of anyOf/oneOf. */
function typesOf(schema: JsonObject, root: JsonObject, depth: number): string[] {
  const types = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') types.add(value);
    else if (Array.isArray(value))
      for (const item of value) if (typeof item === 'string') types.add(item);
  };
  add(schema['type']);
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (!Array.isArray(branches) || depth > MAX_DEPTH) continue;
    for (const branch of branches) {
      if (isObject(branch))
        for (const type of typesOf(resolve(branch, root, depth + 1), root, depth + 1))
          types.add(type);
    }
  }
  if (types.has('integer') && types.has('number')) types.delete('integer');
  return [...types].sort();
}

function enumOf(schema: JsonObject): string {
  const values = Array.isArray(schema['enum'])
    ? schema['enum']
    : 'const' in schema
      ? [schema['const']]
      : null;
  return values === null ? '' : JSON.stringify(values.map((value) => JSON.stringify(value)).sort());
}

/**
 * A schema's shape: each property path with what it admits and whether it is required.
 * Descriptions, titles, defaults, bounds and `additionalProperties` are not part of it.
 */
export function schemaShape(schema: unknown): Map<string, { type: string; required: boolean }> {
  const shape = new Map<string, { type: string; required: boolean }>();
  if (!isObject(schema)) return shape;
  const root = schema;
  const visit = (node: JsonObject, path: string, depth: number) => {
    if (depth > MAX_DEPTH) return;
    const current = resolve(node, root, depth);
    const properties = current['properties'];
    const required = new Set(
      Array.isArray(current['required'])
        ? current['required'].filter((k) => typeof k === 'string')
        : [],
    );
    if (isObject(properties)) {
      for (const [name, child] of Object.entries(properties)) {
        const childPath = `${path}.${name}`;
        const resolved = isObject(child) ? resolve(child, root, depth + 1) : {};
        shape.set(childPath, {
          type: `${typesOf(resolved, root, depth + 1).join('|')}${enumOf(resolved)}`,
          required: required.has(name),
        });
        visit(resolved, childPath, depth + 1);
      }
    }
    const items = current['items'];
    if (isObject(items)) visit(items, `${path}[]`, depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const branches = current[key];
      if (Array.isArray(branches)) {
        branches.forEach((branch, index) => {
          if (isObject(branch)) visit(branch, `${path}.${key}${index}`, depth + 1);
        });
      }
    }
  };
  visit(schema, '', 0);
  return shape;
}

/** A property added, removed, retyped or made required. */
export function schemaChangedSubstantively(before: unknown, after: unknown): boolean {
  const a = schemaShape(before);
  const b = schemaShape(after);
  if (a.size !== b.size) return true;
  for (const [path, entry] of b) {
    const old = a.get(path);
    if (old === undefined || old.type !== entry.type || (entry.required && !old.required))
      return true;
  }
  // The top-level type itself (an object schema turned into something else).
  const topType = (schema: unknown) =>
    isObject(schema) ? JSON.stringify(schema['type'] ?? null) : 'none';
  return topType(before) !== topType(after);
}

/** Longest common subsequence of two word lists (their lengths are capped by the caller). */
function commonWords(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) {
      current[j] =
        a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    previous = current;
  }
  return previous[b.length]!;
}

const MAX_WORDS = 400;

/**
 * Descriptions that say the same with a small edit: equal words, or one a trimmed or
 * lightly edited version of the other (a sentence dropped, a word changed).
 */
export function nearlySameDescription(before: unknown, after: unknown): boolean {
  const a = descriptionWords(before);
  const b = descriptionWords(after);
  // Without words there is nothing to recognise a tool by (exact renames cover that case).
  if (a.length === 0 || b.length === 0) return false;
  if (sameWords(a, b)) return true;
  if (a.length > MAX_WORDS || b.length > MAX_WORDS) return false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < long.length * 0.5) return false;
  const common = commonWords(short, long);
  // A trimmed sentence leaves the shorter one whole; otherwise most words must stay.
  return (
    (common === short.length && long.length - short.length <= 40) || common >= long.length * 0.85
  );
}

/** Input schemas equal in shape but for at most one optional property added or dropped. */
export function nearlySameSchema(before: unknown, after: unknown): boolean {
  const a = schemaShape(before);
  const b = schemaShape(after);
  let differing = 0;
  for (const [path, entry] of b) {
    const old = a.get(path);
    if (old === undefined) {
      if (entry.required || ++differing > 1) return false;
    } else if (old.type !== entry.type || old.required !== entry.required) {
      return false;
    }
  }
  for (const [path, entry] of a) {
    if (!b.has(path) && (entry.required || ++differing > 1)) return false;
  }
  return true;
}

/** Whether an added tool is a lightly edited copy of a removed one (tool_renamed). */
export function nearlySameTool(before: RawTool, after: RawTool): boolean {
  return (
    nearlySameSchema(before['inputSchema'], after['inputSchema']) &&
    nearlySameDescription(before['description'], after['description'])
  );
}
