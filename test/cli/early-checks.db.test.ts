import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

/*
 * `server add`, `edit` and `import` say at once what will keep a server from being watched: a
 * command that is not on PATH, a URL nobody answers at, a `${VAR}` that is not set. A warning
 * by default (exit 0, the server registered); with --check, an error and nothing written.
 */

let database: TestDatabase;
let answering: http.Server;
let answeringUrl: string;
let closedUrl: string;
const UNSET = 'MCP_DRIFT_TEST_NEVER_SET';
const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, { env: { ...database.env, [UNSET]: undefined }, cwd: database.dir });

async function names(): Promise<string[]> {
  const listed = await cli('server', 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as { name: string }[]).map((server) => server.name);
}

beforeAll(async () => {
  database = await createTestDatabase();
  // Any HTTP answer counts as answering: this one is a 404 for everything.
  answering = http.createServer((_request, response) => response.writeHead(404).end());
  await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
  answeringUrl = `http://127.0.0.1:${(answering.address() as net.AddressInfo).port}/mcp`;
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(closed.address() as net.AddressInfo).port}/mcp`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterAll(async () => {
  await new Promise<void>((resolve) => answering?.close(() => resolve()));
  await database?.drop();
});

describe(`early checks of a registration (${backend})`, () => {
  it('says nothing about a command on PATH and a URL that answers', async () => {
    const stdio = await cli('server', 'add', 'fine-stdio', '--stdio', '--', 'node', 'server.js');
    expect(stdio.code, stdio.stderr).toBe(0);
    expect(stdio.stderr).not.toMatch(/warning/);
    const remote = await cli('server', 'add', 'fine-http', '--url', answeringUrl, '--check');
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.stderr).not.toMatch(/warning/);
  });

  it('warns at once, and still registers, a missing binary, an unreachable URL and an unset variable', async () => {
    const binary = await cli('server', 'add', 'nope', '--stdio', '--', 'no-such-binary-here');
    expect(binary.code, binary.stderr).toBe(0);
    expect(binary.stderr).toContain(
      'warning: server nope: command "no-such-binary-here" is not on PATH here',
    );

    const url = await cli('server', 'add', 'far', '--url', closedUrl);
    expect(url.code, url.stderr).toBe(0);
    expect(url.stderr).toMatch(
      /warning: server far: http:\/\/127\.0\.0\.1:\d+ does not answer \(ECONNREFUSED\)/,
    );

    const variable = await cli(
      'server',
      'add',
      'tok',
      '--url',
      answeringUrl,
      '--header',
      `Authorization=Bearer \${${UNSET}}`,
      '--json',
    );
    expect(variable.code, variable.stderr).toBe(0);
    expect(variable.stderr).toContain(
      `warning: server tok: environment variable not set: ${UNSET} (in header Authorization)`,
    );
    // stdout stays the document.
    expect(JSON.parse(variable.stdout)).toMatchObject({ name: 'tok' });
    expect(await names()).toEqual(expect.arrayContaining(['nope', 'far', 'tok']));
  });

  it('refuses with --check, writing nothing, and names every problem', async () => {
    const refused = await cli(
      'server',
      'add',
      'checked',
      '--stdio',
      '--env',
      `KEY=\${${UNSET}}`,
      '--check',
      '--',
      'no-such-binary-here',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('nothing written (--check)');
    expect(refused.stderr).toContain(`${UNSET} (in env KEY)`);
    expect(refused.stderr).toContain('"no-such-binary-here" is not on PATH');

    const unreachable = await cli('server', 'add', 'checked', '--url', closedUrl, '--check');
    expect(unreachable.code).toBe(4);
    expect(await names()).not.toContain('checked');
  });

  it('checks the registration an edit would write, and --check leaves it as it was', async () => {
    const refused = await cli('server', 'edit', 'fine-http', '--url', closedUrl, '--check');
    expect(refused.code).toBe(4);
    const shown = JSON.parse((await cli('server', 'show', 'fine-http', '--json')).stdout) as {
      url: string;
    };
    expect(shown.url).toBe(answeringUrl);

    const warned = await cli(
      'server',
      'edit',
      'fine-stdio',
      '--stdio',
      '--',
      'no-such-binary-here',
    );
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain('warning: server fine-stdio: command "no-such-binary-here"');
  });

  it('warns of what server import registered, and --check imports nothing', async () => {
    // Outside the project directory: a project's own file would wait for --trust-project.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'early-checks-'));
    const file = path.join(dir, 'host-config.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          imported: { command: 'no-such-binary-here', env: { TOKEN: `\${${UNSET}}` } },
        },
      }),
    );
    const checked = await cli('server', 'import', file, '--check');
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain('nothing written (--check): server imported:');
    expect(await names()).not.toContain('imported');

    const imported = await cli('server', 'import', file);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain('warning: server imported: command "no-such-binary-here"');
    expect(imported.stderr).toContain(
      `warning: server imported: environment variable not set: ${UNSET}`,
    );
    expect(await names()).toContain('imported');
    rmSync(dir, { recursive: true, force: true });
  });
});
