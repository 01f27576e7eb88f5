import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DriftError } from './errors.js';
import type { Logger } from './log.js';

/*
 * MCP_DRIFT_HOME holds the embedded database (listings, header values a server echoed, the
 * console's session keys), the console token and the .eml outbox: nothing in it is for
 * another local user to read, and a writable postgresql.conf would be theirs to run code
 * as the operator. Directories are 0700 and files 0600 (see docs/security.md).
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** Group and other permission bits. */
const OPEN_BITS = 0o077;

/**
 * Every file and directory this process creates from now on is private. PGlite writes its
 * data directory through node's fs in this process, with modes of its own (0666 files), so
 * only the umask reaches them; processes started from here (stdio servers) inherit it.
 */
export function restrictUmask(): void {
  const previous = process.umask(OPEN_BITS);
  process.umask(previous | OPEN_BITS);
}

/**
 * Creates `dir` 0700, or makes an existing one that others may enter private again, with
 * everything under it. Returns how many entries were made private: a caller logs a warning
 * when some were. A home that is itself 0700 is not walked: nobody else can reach inside.
 */
export function ensurePrivateDirectory(dir: string): number {
  const resolved = path.resolve(dir);
  mkdirSync(resolved, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stat = statSync(resolved);
  if (!stat.isDirectory()) {
    throw new DriftError('CONFIG_INVALID', `${resolved} is not a directory`);
  }
  if ((stat.mode & OPEN_BITS) === 0) return 0;
  // A shared directory such as /tmp (sticky bit) is not ours to close, even as root.
  if ((stat.mode & 0o1000) !== 0) {
    throw new DriftError(
      'CONFIG_INVALID',
      `${resolved} is a shared directory (sticky bit set); point MCP_DRIFT_HOME at a directory of its own`,
    );
  }
  return makeTreePrivate(resolved);
}

/**
 * Takes group and other bits off `root` and everything under it. Iterative, so that a deep
 * tree cannot overflow the stack; symbolic links are neither followed nor changed.
 */
function makeTreePrivate(root: string): number {
  let changed = 0;
  const pending = [root];
  while (pending.length > 0) {
    const entry = pending.pop()!;
    let stat;
    try {
      stat = lstatSync(entry);
    } catch (error) {
      // Removed meanwhile (a WAL segment recycled by another process): nothing to close.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    if (stat.isSymbolicLink()) continue;
    if ((stat.mode & OPEN_BITS) !== 0) {
      chmodOrExplain(entry, stat.mode & 0o7700);
      changed += 1;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(entry)) pending.push(path.join(entry, name));
    }
  }
  return changed;
}

function chmodOrExplain(entry: string, mode: number): void {
  try {
    chmodSync(entry, mode);
  } catch (error) {
    throw new DriftError(
      'CONFIG_INVALID',
      `${entry} is open to other users and cannot be made private (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); run mcp-drift as its owner`,
      { cause: error },
    );
  }
}

/** Makes one existing file private when others may read or write it; whether it had to. */
export function ensurePrivateFile(file: string): boolean {
  const stat = statSync(file);
  if ((stat.mode & OPEN_BITS) === 0) return false;
  chmodOrExplain(file, stat.mode & 0o7700);
  return true;
}

/** Said by whoever found the directory open: others may have read or changed it before. */
export function warnMadePrivate(logger: Logger, dir: string, entries: number): void {
  logger.warn(
    { dir: path.resolve(dir), entries },
    'the directory was open to other users; it and everything in it are private (0700/0600) now',
  );
}
