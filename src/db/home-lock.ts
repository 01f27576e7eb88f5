import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * PGlite's data directory must never be opened by two processes at once. The process that
 * opens it holds `db.lock`, a file created with O_EXCL that names its pid. A lock whose pid
 * is gone (a crashed or SIGKILLed `serve`) is stale and is taken over, so a crash never
 * leaves the directory unusable.
 */
export interface HomeLock {
  release(): void;
}

export type LockAttempt = { lock: HomeLock } | { heldBy: number };

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; ESRCH: it is gone.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid recorded in a lock file, if it holds one. */
export function readLockHolder(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export function tryLock(lockPath: string): LockAttempt {
  // The pid is written to a private file first and then hard-linked into place: link()
  // is atomic and fails if the lock exists, so no reader ever sees a lock without a pid.
  const candidate = `${lockPath}.${process.pid}`;
  writeFileSync(candidate, String(process.pid), { mode: 0o600 });
  try {
    return lockVia(candidate, lockPath);
  } finally {
    unlinkSync(candidate);
  }
}

function lockVia(candidate: string, lockPath: string): LockAttempt {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      linkSync(candidate, lockPath);
      let released = false;
      return {
        lock: {
          release() {
            if (released) return;
            released = true;
            if (readLockHolder(lockPath) === process.pid) unlinkSync(lockPath);
          },
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readLockHolder(lockPath);
    if (holder !== undefined && processAlive(holder)) {
      return { heldBy: holder };
    }
    // Stale. Re-read just before removing it, so that a lock another process took over a
    // moment ago is not removed as well (the window left is a few microseconds wide).
    if (readLockHolder(lockPath) !== holder) continue;
    try {
      unlinkSync(lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return { heldBy: readLockHolder(lockPath) ?? 0 };
}
