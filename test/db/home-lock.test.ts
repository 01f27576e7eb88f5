import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tryLock } from '../../src/db/home-lock.js';

let dir: string;
let lockPath: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-lock-'));
  lockPath = path.join(dir, 'db.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that certainly belonged to a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('the embedded database home lock', () => {
  it('is exclusive while held and free again after release', () => {
    const first = tryLock(lockPath);
    expect('lock' in first).toBe(true);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    expect(tryLock(lockPath)).toEqual({ heldBy: process.pid });
    if ('lock' in first) first.lock.release();
    expect(existsSync(lockPath)).toBe(false);
    const again = tryLock(lockPath);
    expect('lock' in again).toBe(true);
    if ('lock' in again) again.lock.release();
  });

  it('takes over a lock left by a process that died', () => {
    writeFileSync(lockPath, String(deadPid()));
    const attempt = tryLock(lockPath);
    expect('lock' in attempt).toBe(true);
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    if ('lock' in attempt) attempt.lock.release();
  });

  it('respects a lock held by another live process', () => {
    writeFileSync(lockPath, String(process.ppid));
    expect(tryLock(lockPath)).toEqual({ heldBy: process.ppid });
    expect(readFileSync(lockPath, 'utf8')).toBe(String(process.ppid));
  });

  it('leaves no candidate file behind', () => {
    const attempt = tryLock(lockPath);
    if ('lock' in attempt) attempt.lock.release();
    expect(existsSync(`${lockPath}.${process.pid}`)).toBe(false);
  });
});
