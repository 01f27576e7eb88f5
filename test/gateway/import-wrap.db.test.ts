import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, cliMain, runCli } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';
import { listed } from '../support/gateway.js';
import { fixturePath } from '../support/mcp-fixtures.js';

/*
 * `server import --wrap`: the host config it prints, pasted into a host (Claude Desktop's
 * and Cursor's JSON), starts the gateway; the test runs the printed command as the host
 * would and lists the approved tools through it (docs/gateway.md, Putting a host behind it).
 */

let database: TestDatabase;
let bin: string;
const cli = (...args: string[]) => runCli(args, { env: database.env, cwd: database.dir });

beforeAll(async () => {
  database = await createTestDatabase();
  // `mcp-drift` on PATH, as an installed one would be.
  bin = path.join(database.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, 'mcp-drift'),
    `#!/bin/sh\nexec '${process.execPath}' '${cliMain}' "$@"\n`,
  );
  chmodSync(path.join(bin, 'mcp-drift'), 0o755);
}, 60_000);

afterAll(async () => {
  await database?.drop();
});

describe(`server import --wrap (${backend})`, () => {
  for (const [host, file] of [
    ['claude-desktop', 'claude_desktop_config.json'],
    ['cursor', 'mcp.json'],
  ] as const) {
    it(`prints a ${host} config whose command runs the gateway`, async () => {
      const dir = path.join(database.dir, host);
      mkdirSync(dir);
      const configFile = path.join(dir, file);
      const original = {
        mcpServers: {
          [`${host}-files`]: { command: process.execPath, args: [fixturePath('sdk2-server.mjs')] },
        },
        otherSetting: true,
      };
      writeFileSync(configFile, JSON.stringify(original, null, 2));
      const wrapped = await cli(
        'server',
        'import',
        configFile,
        '--from',
        host,
        '--trust-project',
        '--wrap',
      );
      expect(wrapped.code, wrapped.stderr).toBe(0);
      const config = JSON.parse(wrapped.stdout) as {
        mcpServers: Record<string, { command: string; args: string[] }>;
        otherSetting: boolean;
      };
      expect(config.otherSetting).toBe(true);
      const entry = config.mcpServers[`${host}-files`]!;
      expect(entry).toEqual({ command: 'mcp-drift', args: ['gateway', `${host}-files`] });
      // The gateway serves the approved baseline: the first check records it.
      const checked = await cli('check', `${host}-files`);
      expect(checked.code, checked.stderr).toBe(0);

      const client = new Client({ name: host, version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: entry.command,
          args: entry.args,
          cwd: database.dir,
          env: childEnv({
            ...database.env,
            PATH: `${bin}:${process.env['PATH'] ?? ''}`,
          }) as Record<string, string>,
          stderr: 'pipe',
        }),
      );
      try {
        const names = (await listed(client)).map((tool) => tool.name).sort();
        expect(names).toEqual(['list_files', 'post_message', 'purge_tenant', 'relax_purge_tenant']);
      } finally {
        await client.close();
      }

      // --write shows the changed lines, then rewrites the file.
      const written = await cli(
        'server',
        'import',
        configFile,
        '--from',
        host,
        '--trust-project',
        '--wrap',
        '--write',
      );
      expect(written.code, written.stderr).toBe(0);
      expect(written.stdout).toContain(`+++ ${configFile}`);
      expect(written.stdout).toMatch(/^\+\s+"command": "mcp-drift",$/m);
      expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual(config);
    }, 120_000);
  }
});
