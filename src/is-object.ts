/** A JSON object: not null, not an array. Server answers and files are checked with it. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
