import { describe, expect, it } from 'vitest';
import { clockTime, prettyLogLine } from '../../src/log-pretty.js';

const time = '2026-01-01T19:31:05.000Z';
const local = clockTime(new Date(time), true);

describe('the terminal log format', () => {
  it('prints one line: time, level, who, message and fields as key=value', () => {
    const line = JSON.stringify({
      level: 40,
      time,
      service: 'mcp-drift',
      server: 'search',
      trigger: 'poll',
      code: 'REMOTE_UNREACHABLE',
      reason: 'connect ECONNREFUSED 127.0.0.1:9',
      msg: 'listing failed',
    });
    expect(prettyLogLine(`${line}\n`)).toBe(
      `${local} WARN  search: listing failed  trigger=poll code=REMOTE_UNREACHABLE reason="connect ECONNREFUSED 127.0.0.1:9"\n`,
    );
  });

  it('prints a headline in place of the message and fields', () => {
    const line = JSON.stringify({
      level: 40,
      time,
      server: 'search',
      change: 2,
      severity: 'critical',
      headline: 'CRITICAL search: purge_tenant now claims read-only — change #2',
      msg: 'listing changed',
    });
    expect(prettyLogLine(line)).toBe(
      `${local} WARN  CRITICAL search: purge_tenant now claims read-only — change #2\n`,
    );
  });

  it('flattens nested fields, shows an error by its message, and lets no control character through', () => {
    const line = JSON.stringify({
      level: 50,
      time,
      component: 'alerts',
      console: { url: 'http://127.0.0.1:1/' },
      err: { type: 'Error', message: 'boom\u001b[2J', stack: 'Error: boom\n    at x' },
      msg: 'failed\u001b]0;title\u0007',
    });
    const pretty = prettyLogLine(line);
    expect(pretty).toBe(
      `${local} ERROR alerts: failed⟦U+001B⟧]0;title⟦U+0007⟧  console.url=http://127.0.0.1:1/ err=boom⟦U+001B⟧[2J\n`,
    );
    expect(pretty.trimEnd()).not.toContain('\n');
  });

  it('passes a line that is not JSON through, made safe', () => {
    expect(prettyLogLine('cut \u001b[1m line\n')).toBe('cut ⟦U+001B⟧[1m line\n');
  });
});
