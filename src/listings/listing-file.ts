import { readFile } from 'node:fs/promises';
import { diffListings, type DiffResult } from '../diff/index.js';
import type { TrustLevel } from '../diff/types.js';
import { DriftError } from '../errors.js';
import type { RawTool } from './canonical.js';
import { toolsFromDocument } from './validate.js';

/** A listing saved as a file: a tools/list result (`{"tools":[…]}`) or an array of tools. */
export async function readListingFile(path: string): Promise<RawTool[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (error as Error).message;
    throw new DriftError('INVALID_INPUT', `cannot read ${path}: ${why}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new DriftError('INVALID_INPUT', `${path} is not valid JSON: ${(error as Error).message}`);
  }
  return toolsFromDocument(doc, path);
}

/** The offline diff of two listing files: no database, no server. */
export async function diffListingFiles(
  beforePath: string,
  afterPath: string,
  options: { trust?: TrustLevel },
): Promise<DiffResult> {
  const before = await readListingFile(beforePath);
  const after = await readListingFile(afterPath);
  return diffListings(before, after, { trust: options.trust });
}
