import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { isDriftError } from '../../src/errors.js';
import { startHttpServer } from '../../src/http/http-server.js';
import { createLogger } from '../../src/log.js';
import { runCli } from '../support/cli.js';

/*
 * Issue 12, defect 10: the default ops port 9464 is also the OpenTelemetry Prometheus
 * exporter's, and a real server took it first. The default is one nobody claims, and a
 * port that is taken is reported with the process that holds it.
 */

/** Another program on the machine, holding a loopback port (as the exporter did). */
let holder: ChildProcess;
let heldPort: number;

beforeAll(async () => {
  holder = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:http').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port));`,
      'otel-exporter-stand-in',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(holder.stdout!, 'data')) as [Buffer];
  heldPort = Number(line.toString().trim());
});
afterAll(() => {
  holder?.kill();
});

describe('the ops port', () => {
  it('defaults to 8464, which neither IANA nor the Prometheus exporters assign', () => {
    const config = loadConfig({});
    expect(config.HTTP_PORT).toBe(8464);
    expect(config.HTTP_PORT).not.toBe(9464);
  });

  it('names the process that holds a port it cannot take', async () => {
    const error = await startHttpServer({
      host: '127.0.0.1',
      port: heldPort,
      routes: {},
      logger: createLogger('silent'),
    }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(isDriftError(error) && error.code).toBe('CONFIG_INVALID');
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect((error as Error).message).toMatch(
      new RegExp(
        `^cannot listen on 127\\.0\\.0\\.1:${heldPort} for health and metrics: the port is in use by ` +
          `pid ${holder.pid} \\(${escape(process.execPath)} -e .+\\); ` +
          'set HTTP_PORT to a free port \\(0 picks one\\) or HTTP_HOST to an address of this machine$',
      ),
    );
  });

  it('makes serve exit 2 with that message', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-ops-port-'));
    try {
      const result = await runCli(['serve'], {
        cwd: dir,
        env: { MCP_DRIFT_HOME: path.join(dir, 'home'), HTTP_PORT: String(heldPort) },
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`the port is in use by pid ${holder.pid} (`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
