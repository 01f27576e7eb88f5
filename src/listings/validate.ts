import { DriftError } from '../errors.js';
import type { RawTool } from './canonical.js';

/** How a value looks, for error messages: never echo a whole hostile value back. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string (${quote(value)})`;
  return `${typeof value === 'number' ? 'a number' : `a ${typeof value}`} (${String(value)})`;
}

/** A server-supplied string, quoted, escaped and shortened so that it is safe in a message. */
export function quote(text: string, max = 80): string {
  const short = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(short);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks that a value is a list of tools mcp-drift can identify: an array of objects, each
 * with a non-empty string `name`, no name twice. Nothing else about a tool is checked: every
 * other key is kept as the server sent it, since that is what gets diffed.
 * `what` names the value in messages ("tools", "BEFORE.json: tools").
 */
export function validateTools(value: unknown, what = 'the tools list'): RawTool[] {
  if (!Array.isArray(value)) {
    throw new DriftError(
      'INVALID_INPUT',
      `${what} must be a JSON array of tools, but it is ${describe(value)}`,
    );
  }
  const firstIndexByName = new Map<string, number>();
  value.forEach((tool: unknown, index) => {
    if (!isPlainObject(tool)) {
      throw new DriftError(
        'INVALID_INPUT',
        `${what}: the tool at index ${index} must be an object, but it is ${describe(tool)}`,
      );
    }
    const name = tool['name'];
    if (typeof name !== 'string' || name === '') {
      const got = name === undefined ? 'it has none' : `it is ${describe(name)}`;
      throw new DriftError(
        'INVALID_INPUT',
        `${what}: the tool at index ${index} needs a non-empty string "name", but ${got}`,
      );
    }
    const earlier = firstIndexByName.get(name);
    if (earlier !== undefined) {
      throw new DriftError(
        'INVALID_INPUT',
        `${what}: two tools are named ${quote(name)} (at index ${earlier} and ${index}); tool names must be unique`,
      );
    }
    firstIndexByName.set(name, index);
  });
  return [...value] as RawTool[];
}

/**
 * The tools of a document that is either a tools/list result (`{"tools": [...]}`, other keys
 * such as nextCursor ignored) or a bare JSON array of tools (docs/design.md §7, `diff`).
 */
export function toolsFromDocument(doc: unknown, what = 'the document'): RawTool[] {
  if (Array.isArray(doc)) return validateTools(doc, what);
  if (isPlainObject(doc)) {
    if (!Object.hasOwn(doc, 'tools')) {
      throw new DriftError(
        'INVALID_INPUT',
        `${what} must be a tools/list result ({"tools": [...]}) or a JSON array of tools, but it is an object without a "tools" key`,
      );
    }
    return validateTools(doc['tools'], `"tools" in ${what}`);
  }
  throw new DriftError(
    'INVALID_INPUT',
    `${what} must be a tools/list result ({"tools": [...]}) or a JSON array of tools, but it is ${describe(doc)}`,
  );
}
