import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { DriftError } from './errors.js';

export interface InputFileOptions {
  /** Refuse a file larger than this, before reading it (a host config: 4 MiB). */
  maxBytes?: number;
}

/**
 * A file a person named on the command line (a listing, a host config), read as text. A
 * missing file, a directory, a FIFO or device, or a file over `maxBytes` is bad input
 * (exit 2) in words, not an errno. Opened with O_NONBLOCK and checked with fstat before
 * any read: opening a FIFO without it blocks until a writer comes, forever and deaf to
 * SIGTERM, and reading /dev/zero never ends.
 */
export async function readInputFile(path: string, options: InputFileOptions = {}): Promise<string> {
  const refuse = (why: string): never => {
    throw new DriftError('INVALID_INPUT', `cannot read ${path}: ${why}`);
  };
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return refuse(
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : (error as Error).message,
    );
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) return refuse('it is a directory');
    if (!stat.isFile()) return refuse('not a regular file (a FIFO, socket or device)');
    if (options.maxBytes !== undefined && stat.size > options.maxBytes) {
      return refuse(
        `${stat.size.toLocaleString('en-US')} bytes, over the limit of ${options.maxBytes.toLocaleString('en-US')}`,
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
