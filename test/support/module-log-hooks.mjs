// Module hooks for fast-start.test.ts: every module URL the ESM loader resolves is appended
// to the file MODULE_LOG names. CommonJS requires inside packages are not seen; the imports
// that pull a package in are.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
