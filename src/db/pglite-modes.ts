import fs from 'node:fs';
import path from 'node:path';

/*
 * PGlite's file system (emscripten's NODEFS) writes the data directory through node's fs in
 * this process, and sets each file's mode itself: after creating a file it chmods it to the
 * mode Postgres asked for less emscripten's own umask (0644), and initdb chmods what it
 * unpacks to 0666. The process umask covers creation only, so the modes it sets are
 * narrowed here: nothing under a guarded data directory gets a group or other bit.
 */

const OPEN_BITS = 0o077;
const guarded = new Set<string>();
let installed = false;

function inside(target: fs.PathLike): boolean {
  if (typeof target !== 'string') return false;
  const resolved = path.resolve(target);
  for (const dir of guarded) {
    if (resolved === dir || resolved.startsWith(dir + path.sep)) return true;
  }
  return false;
}

const narrowed = (mode: fs.Mode): fs.Mode =>
  typeof mode === 'number' ? mode & ~OPEN_BITS : (parseInt(mode, 8) & ~OPEN_BITS).toString(8);

/** From now on, chmods of anything under `dataDir` keep group and other bits off. */
export function keepPrivateModes(dataDir: string): void {
  guarded.add(path.resolve(dataDir));
  if (installed) return;
  installed = true;
  // NODEFS looks these up on `require('node:fs')` at each call, the object patched here.
  const chmodSync = fs.chmodSync.bind(fs);
  const fchmodSync = fs.fchmodSync.bind(fs);
  fs.chmodSync = (target, mode) => chmodSync(target, inside(target) ? narrowed(mode) : mode);
  // A descriptor names no path; nothing else in mcp-drift fchmods, and PGlite only its own files.
  fs.fchmodSync = (fd, mode) => fchmodSync(fd, narrowed(mode));
}
