import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { consoleToken, TOKEN_FILE } from '../../src/console/console-token.js';

const homes: string[] = [];
function home(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-token-'));
  homes.push(dir);
  return path.join(dir, 'home');
}
afterEach(() => {
  for (const dir of homes.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the console token', () => {
  it('is made on first start, private to its owner, and kept for later starts', () => {
    const dir = home();
    const config = loadConfig({ MCP_DRIFT_HOME: dir });
    expect(existsSync(path.join(dir, TOKEN_FILE))).toBe(false);
    const first = consoleToken(config);
    expect(first).toMatchObject({ source: 'file', file: path.join(dir, TOKEN_FILE) });
    expect(first.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(first.file!).mode & 0o777).toBe(0o600);
    const again = consoleToken(config);
    expect(again).toMatchObject({ value: first.value, madePrivate: false });
  });

  it('makes a token file others could read private again', () => {
    const config = loadConfig({ MCP_DRIFT_HOME: home() });
    const { file } = consoleToken(config);
    chmodSync(file!, 0o644);
    expect(consoleToken(config).madePrivate).toBe(true);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
  });

  it('is CONSOLE_TOKEN when set, and no file is made', () => {
    const dir = home();
    const token = consoleToken(loadConfig({ MCP_DRIFT_HOME: dir, CONSOLE_TOKEN: 'x'.repeat(20) }));
    expect(token).toMatchObject({ value: 'x'.repeat(20), source: 'CONSOLE_TOKEN', file: null });
    expect(() => statSync(dir)).toThrow();
  });

  it('refuses a CONSOLE_TOKEN or a kept token that is too short to be secret', () => {
    expect(() => loadConfig({ CONSOLE_TOKEN: 'short' })).toThrow(
      /CONSOLE_TOKEN must be at least 16 characters/,
    );
    const config = loadConfig({ MCP_DRIFT_HOME: home() });
    const { file } = consoleToken(config);
    writeFileSync(file!, 'tiny\n');
    expect(() => consoleToken(config)).toThrow(/shorter than 16 characters/);
  });
});
