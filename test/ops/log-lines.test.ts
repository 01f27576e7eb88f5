import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { finishLogLine, MAX_LOG_LINE_CHARS, redactFromLogs } from '../../src/log-lines.js';
import { REPO_ROOT } from '../support/mcp-fixtures.js';

/*
 * Issue 12, defect 2: a failed statement's error quotes every parameter, and one change of
 * 3,700 findings once logged a single 43 MB line. Lines are capped; what they keep is
 * still JSON, names what was cut, and never half a secret.
 */

describe('log lines', () => {
  it('are cut to a bounded size and stay one JSON object that says what was cut', () => {
    const huge = `Failed query: insert into "findings" params: ${'x,'.repeat(3_000_000)}`;
    const line = `${JSON.stringify({ level: 50, time: '2026-11-01T00:00:00.000Z', server: 'big', err: { message: huge, stack: huge }, msg: 'record poll observation failed' })}\n`;
    const finished = finishLogLine(line);
    expect(finished.length).toBeLessThanOrEqual(MAX_LOG_LINE_CHARS);
    expect(finished.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(finished) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      level: 50,
      server: 'big',
      msg: 'record poll observation failed',
      truncatedChars: line.length,
    });
    expect(String((parsed['err'] as { message: string }).message)).toMatch(
      /^Failed query: insert into "findings".*… \(\d+ more characters\)$/,
    );
  });

  it('mask a secret before cutting, so that no part of it survives the cut', () => {
    const secret = 'cut-secret-0123456789abcdefghijklmnopqrstuv';
    redactFromLogs([secret]);
    // The secret straddles where a long string is cut.
    const text = `${'y'.repeat(1_990)}${secret}${'z'.repeat(40_000)}`;
    const finished = finishLogLine(`${JSON.stringify({ msg: 'm', reason: text })}\n`);
    expect(finished).not.toContain(secret.slice(0, 10));
    expect(finished).toContain('****');
  });

  it('of serve itself stay under the cap when an error message is megabytes long', () => {
    // The real logger, in a process of its own (it writes to fd 2).
    const script = `
      import { createLogger } from './src/log.ts';
      createLogger('info').error({ err: new Error('p'.repeat(5_000_000)) }, 'statement failed');`;
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      },
    );
    expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThanOrEqual(MAX_LOG_LINE_CHARS);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'statement failed', level: 50 });
  });
});
