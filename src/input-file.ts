import { readFile } from 'node:fs/promises';
import { DriftError } from './errors.js';

/**
 * A file a person named on the command line (a listing, a host config), read as text. A
 * missing file or a directory is bad input (exit 2) in words, not an errno.
 */
export async function readInputFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
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
}
