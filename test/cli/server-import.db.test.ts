import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servers } from '../../src/db/schema.js';
import { runCli, type CliResult } from '../support/cli.js';
import { backend, createTestDatabase, type TestDatabase } from '../support/database.js';

// Issue 15, acceptance 1: the five hosts' config files, written where each host documents
// them (Linux paths: this suite runs on Linux; the macOS ones are in host-configs.test.ts),
// in a HOME of this test's own, imported by the real CLI into a real database. The project's
// files are trusted here (--trust-project); server-import-safety.db.test.ts is about not.
let database: TestDatabase;
let user: string;
let project: string;

/** Values the importing process has in its environment: none may reach the database. */
const ENVIRONMENT = {
  API_TOKEN: 'env-secret-api-token-1234',
  SENTRY_TOKEN: 'env-secret-sentry-5678',
  LINEAR_KEY: 'env-secret-linear-9012',
};
const LITERAL_TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

const cli = (...args: string[]): Promise<CliResult> =>
  runCli(args, {
    env: { ...database.env, ...ENVIRONMENT, HOME: user, XDG_CONFIG_HOME: undefined },
    cwd: project,
  });

function write(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

interface Outcome {
  name: string;
  entry: string;
  host: string;
  status: string;
  reason: string | null;
  transport: string | null;
  line: number;
  notes: string[];
  secrets: { field: string; advice: string }[];
}

async function importJson(...args: string[]): Promise<{
  sources: { host: string; scope: string; path: string; found: boolean; servers: number }[];
  servers: Outcome[];
}> {
  const result = await cli('server', 'import', '--trust-project', ...args, '--json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

async function registered(): Promise<Record<string, Record<string, unknown>>> {
  const result = await cli('server', 'list', '--json');
  expect(result.code, result.stderr).toBe(0);
  const views = JSON.parse(result.stdout) as { name: string }[];
  return Object.fromEntries(views.map((view) => [view.name, view]));
}

const files = {
  claudeDesktop: () => path.join(user, '.config', 'Claude', 'claude_desktop_config.json'),
  claudeCodeUser: () => path.join(user, '.claude.json'),
  claudeCodeProject: () => path.join(project, '.mcp.json'),
  cursorUser: () => path.join(user, '.cursor', 'mcp.json'),
  cursorProject: () => path.join(project, '.cursor', 'mcp.json'),
  vscodeUser: () => path.join(user, '.config', 'Code', 'User', 'mcp.json'),
  vscodeProject: () => path.join(project, '.vscode', 'mcp.json'),
  windsurf: () => path.join(user, '.codeium', 'windsurf', 'mcp_config.json'),
};

beforeAll(async () => {
  database = await createTestDatabase();
  user = mkdtempSync(path.join(tmpdir(), 'mcp-drift-user-'));
  project = path.join(user, 'work', 'shop');
  mkdirSync(project, { recursive: true });

  // Claude Desktop: stdio servers, the literal token its docs' examples paste in.
  write(
    files.claudeDesktop(),
    JSON.stringify(
      {
        mcpServers: {
          github: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github'],
            env: { GITHUB_PERSONAL_ACCESS_TOKEN: LITERAL_TOKEN },
          },
          filesystem: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/Documents'],
          },
        },
        globalShortcut: 'Ctrl+Space',
      },
      null,
      2,
    ),
  );
  // Claude Code: user scope at the top of ~/.claude.json, this project's "local" scope
  // under projects[path], the shared .mcp.json with ${VAR} and ${VAR:-default}.
  write(
    files.claudeCodeUser(),
    JSON.stringify(
      {
        numStartups: 12,
        mcpServers: {
          sentry: {
            type: 'http',
            url: 'https://mcp.sentry.dev/mcp',
            headers: { Authorization: 'Bearer ${SENTRY_TOKEN}' },
          },
        },
        projects: {
          [project]: {
            mcpServers: { 'local notes': { type: 'stdio', command: 'node', args: ['notes.js'] } },
          },
          '/some/other/project': { mcpServers: { unrelated: { command: 'nothing' } } },
        },
      },
      null,
      2,
    ),
  );
  write(
    files.claudeCodeProject(),
    JSON.stringify(
      {
        mcpServers: {
          'api-server': {
            type: 'sse',
            url: '${API_BASE_URL:-https://api.example.com}/sse',
            headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Region': '${REGION:-eu}' },
          },
          db: {
            command: 'npx',
            args: ['-y', '@bytebase/dbhub'],
            env: { DSN: '${DATABASE_DSN}', LOG_LEVEL: '${LOG_LEVEL:-info}' },
          },
        },
      },
      null,
      2,
    ),
  );
  // Cursor: JSON with comments and trailing commas, as its editor lets you save it; a
  // github that is not Claude Desktop's.
  write(
    files.cursorUser(),
    `{
  // Servers for every project
  "mcpServers": {
    /* the GitHub server, through Docker */
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "\${env:GITHUB_TOKEN}", },
    },
    "linear": {
      "url": "https://mcp.linear.app/mcp",
      "headers": { "Authorization": "Bearer \${env:LINEAR_KEY}" },
    },
  },
}
`,
  );
  write(
    files.cursorProject(),
    JSON.stringify({ mcpServers: { 'shop-tools': { command: 'node', args: ['tools/mcp.js'] } } }),
  );
  // VS Code: `servers` and `inputs`, ${input:…}, ${workspaceFolder}, an sse entry.
  write(
    files.vscodeUser(),
    JSON.stringify(
      {
        inputs: [
          {
            type: 'promptString',
            id: 'perplexity-key',
            description: 'Perplexity API Key',
            password: true,
          },
        ],
        servers: {
          perplexity: {
            type: 'stdio',
            command: 'docker',
            args: ['run', '-i', '--rm', '-e', 'PERPLEXITY_API_KEY', 'mcp/perplexity-ask'],
            env: { PERPLEXITY_API_KEY: '${input:perplexity-key}' },
          },
        },
      },
      null,
      2,
    ),
  );
  write(
    files.vscodeProject(),
    JSON.stringify(
      {
        servers: {
          playwright: {
            command: 'npx',
            args: ['@playwright/mcp@latest', '--output-dir', '${workspaceFolder}/out'],
          },
          legacy: { type: 'sse', url: 'http://127.0.0.1:8931/sse' },
        },
      },
      null,
      2,
    ),
  );
  // Windsurf: `serverUrl` for a remote server.
  write(
    files.windsurf(),
    JSON.stringify(
      {
        mcpServers: {
          zapier: { serverUrl: 'https://actions.zapier.com/mcp/sse', disabled: true },
          memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        },
      },
      null,
      2,
    ),
  );
});
afterAll(async () => {
  await database?.drop();
  if (user) rmSync(user, { recursive: true, force: true });
});

describe(`server import (${backend})`, () => {
  it('--dry-run finds every host at its documented place, says what it would do, and writes nothing', async () => {
    const report = await importJson('--dry-run');
    expect(
      report.sources
        .filter((source) => source.found)
        .map((source) => [source.host, source.scope, source.path]),
    ).toEqual([
      ['claude-desktop', 'user', files.claudeDesktop()],
      ['claude-code', 'user', files.claudeCodeUser()],
      ['claude-code', 'project', files.claudeCodeProject()],
      ['cursor', 'user', files.cursorUser()],
      ['cursor', 'project', files.cursorProject()],
      ['vscode', 'user', files.vscodeUser()],
      ['vscode', 'project', files.vscodeProject()],
      ['windsurf', 'user', files.windsurf()],
    ]);
    expect(
      report.servers.filter((server) => server.status === 'added').map((server) => server.name),
    ).toEqual([
      'github',
      'filesystem',
      'sentry',
      'local-notes',
      'api-server',
      'db',
      'linear',
      'shop-tools',
      'perplexity',
      'playwright',
      'legacy',
      'zapier',
      'memory',
    ]);
    expect(await registered()).toEqual({});

    const table = await cli('server', 'import', '--trust-project', '--dry-run');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^NAME +WOULD BE +TRANSPORT +TARGET +FROM$/m);
    expect(table.stdout).toMatch(
      /^api-server +added +sse +https:\/\/api\.example\.com\/sse +\.mcp\.json:\d+$/m,
    );
    expect(table.stdout).toContain('(dry run: nothing was written)');
    expect(await registered()).toEqual({});
  });

  it('imports stdio, http and sse entries, keeps references as references, and masks and reports a literal token', async () => {
    const report = await importJson();
    const byName = Object.fromEntries(
      report.servers
        .filter((server) => server.status === 'added')
        .map((server) => [server.name, server]),
    );
    expect(byName['github']).toMatchObject({ host: 'claude-desktop', status: 'added' });
    expect(byName['github']!.secrets).toEqual([
      {
        field: 'env GITHUB_PERSONAL_ACCESS_TOKEN',
        advice: expect.stringMatching(/move|write it as \$\{GITHUB_PERSONAL_ACCESS_TOKEN\}/),
      },
    ]);
    // Cursor's github is another server under the same name: reported, not imported.
    const cursorGithub = report.servers.find(
      (server) => server.host === 'cursor' && server.entry === 'github',
    );
    expect(cursorGithub).toMatchObject({
      status: 'clash',
      reason: expect.stringContaining('--prefix'),
    });

    const views = await registered();
    expect(views['github']).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: '****' },
    });
    expect(views['sentry']).toMatchObject({
      transport: 'http',
      url: 'https://mcp.sentry.dev/mcp',
      headers: { Authorization: 'Bearer ${SENTRY_TOKEN}' },
    });
    expect(views['api-server']).toMatchObject({
      transport: 'sse',
      url: 'https://api.example.com/sse',
      headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Region': '${REGION:-****}' },
    });
    expect(byName['api-server']!.notes.join('\n')).toContain(
      'registered as its default, https://api.example.com',
    );
    expect(views['db']).toMatchObject({
      env: { DSN: '${DATABASE_DSN}', LOG_LEVEL: '${LOG_LEVEL:-****}' },
    });
    expect(views['linear']).toMatchObject({
      transport: 'http',
      headers: { Authorization: 'Bearer ${LINEAR_KEY}' },
    });
    expect(views['local-notes']).toMatchObject({
      transport: 'stdio',
      command: 'node',
      args: ['notes.js'],
    });
    expect(views['perplexity']).toMatchObject({ env: { PERPLEXITY_API_KEY: '${PERPLEXITY_KEY}' } });
    expect(byName['perplexity']!.notes.join('\n')).toMatch(
      /Perplexity API Key.*set PERPLEXITY_KEY/,
    );
    expect(views['playwright']).toMatchObject({
      args: ['@playwright/mcp@latest', '--output-dir', `${project}/out`],
    });
    expect(views['legacy']).toMatchObject({ transport: 'sse', url: 'http://127.0.0.1:8931/sse' });
    expect(views['zapier']).toMatchObject({ transport: 'sse', enabled: false });
    expect(views['memory']).toMatchObject({ transport: 'stdio' });
    expect(views['unrelated']).toBeUndefined();

    // What the database holds: references as written, the environment's values nowhere,
    // the literal token as the host had it (so that the server works).
    const handle = await database.open();
    try {
      const rows = await handle.db.select().from(servers);
      const stored = JSON.stringify(rows);
      for (const value of Object.values(ENVIRONMENT)) expect(stored).not.toContain(value);
      const row = (name: string) => rows.find((candidate) => candidate.name === name)!;
      expect(row('api-server').headers).toEqual({
        Authorization: 'Bearer ${API_TOKEN}',
        'X-Region': '${REGION:-eu}',
      });
      expect(row('linear').headers).toEqual({ Authorization: 'Bearer ${LINEAR_KEY}' });
      expect(row('github').env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: LITERAL_TOKEN });
    } finally {
      await handle.close();
    }
    const show = await cli('server', 'show', 'github');
    expect(show.stdout).not.toContain(LITERAL_TOKEN);
    const text = await cli('server', 'import', '--trust-project', '--dry-run');
    expect(text.stdout).not.toContain(LITERAL_TOKEN);
  });

  it('reports a clash with a server registered by hand, and an entry changed since its import, and overwrites neither without --update', async () => {
    const added = await cli(
      'server',
      'add',
      'docs',
      '--url',
      'http://127.0.0.1:9000/mcp',
      '--trust',
      'trusted',
    );
    expect(added.code, added.stderr).toBe(0);
    write(
      files.cursorProject(),
      JSON.stringify({
        mcpServers: {
          'shop-tools': { command: 'node', args: ['tools/mcp.js', '--verbose'] },
          docs: { url: 'http://127.0.0.1:9001/mcp' },
        },
      }),
    );
    const report = await importJson('--from', 'cursor');
    const byEntry = Object.fromEntries(report.servers.map((server) => [server.entry, server]));
    expect(byEntry['shop-tools']).toMatchObject({
      status: 'changed',
      reason: expect.stringContaining('--update'),
    });
    expect(byEntry['docs']).toMatchObject({
      status: 'clash',
      reason: expect.stringContaining('registered already'),
    });
    expect(byEntry['linear']).toMatchObject({ status: 'unchanged' });
    let views = await registered();
    expect(views['shop-tools']).toMatchObject({ args: ['tools/mcp.js'] });
    expect(views['docs']).toMatchObject({ url: 'http://127.0.0.1:9000/mcp' });

    const updated = await importJson('--from', 'cursor', '--update');
    expect(
      updated.servers
        .filter((server) => server.status === 'updated')
        .map((server) => server.name)
        .sort(),
    ).toEqual(['docs', 'github', 'shop-tools']);
    views = await registered();
    expect(views['shop-tools']).toMatchObject({ args: ['tools/mcp.js', '--verbose'] });
    // The connection is the host's; what the operator set (trust) stays.
    expect(views['docs']).toMatchObject({ url: 'http://127.0.0.1:9001/mcp', trust: 'trusted' });
    const again = await importJson('--from', 'cursor');
    expect(new Set(again.servers.map((server) => server.status))).toEqual(new Set(['unchanged']));
  });

  it('stops at a malformed file, naming the file, the line and the problem, with nothing written', async () => {
    const before = await registered();
    const broken = path.join(project, 'broken.json');
    write(
      broken,
      `{
  "mcpServers": {
    "new-one": { "command": "node", "args": ["a.js"] },
    "oops": { "command": "node" "args": [] }
  }
}
`,
    );
    const result = await cli(
      'server',
      'import',
      '--trust-project',
      files.windsurf(),
      broken,
      '--json',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `mcp-drift: ${broken}:4:33: expected ',' or '}' after a property, found '"'\n`,
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    expect(await registered()).toEqual(before);
  });
});
