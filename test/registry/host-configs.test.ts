import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  guessHost,
  hostConfigLocations,
  readHostConfig,
  type HostConfigFile,
  type HostContext,
} from '../../src/registry/host-configs.js';
import { convertEntry, inputVariable, registryName } from '../../src/registry/host-entry.js';
import { maskArguments } from '../../src/registry/secrets.js';

const linux: HostContext = { home: '/home/me', projectDir: '/projects/app', platform: 'linux' };

describe('host config locations', () => {
  it('are the documented ones on Linux', () => {
    expect(
      hostConfigLocations(linux).map((location) => [location.host, location.scope, location.path]),
    ).toEqual([
      ['claude-desktop', 'user', '/home/me/.config/Claude/claude_desktop_config.json'],
      ['claude-code', 'user', '/home/me/.claude.json'],
      ['claude-code', 'project', '/projects/app/.mcp.json'],
      ['cursor', 'user', '/home/me/.cursor/mcp.json'],
      ['cursor', 'project', '/projects/app/.cursor/mcp.json'],
      ['vscode', 'user', '/home/me/.config/Code/User/mcp.json'],
      ['vscode', 'project', '/projects/app/.vscode/mcp.json'],
      ['windsurf', 'user', '/home/me/.codeium/windsurf/mcp_config.json'],
    ]);
    expect(hostConfigLocations({ ...linux, xdgConfigHome: '/xdg' }, ['vscode'])[0]!.path).toBe(
      '/xdg/Code/User/mcp.json',
    );
  });

  it('are the documented ones on macOS', () => {
    const mac = hostConfigLocations({ ...linux, home: '/Users/me', platform: 'darwin' });
    const paths = Object.fromEntries(
      mac.map((location) => [`${location.host} ${location.scope}`, location.path]),
    );
    expect(paths).toMatchObject({
      'claude-desktop user':
        '/Users/me/Library/Application Support/Claude/claude_desktop_config.json',
      'claude-code user': '/Users/me/.claude.json',
      'cursor user': '/Users/me/.cursor/mcp.json',
      'vscode user': '/Users/me/Library/Application Support/Code/User/mcp.json',
      'windsurf user': '/Users/me/.codeium/windsurf/mcp_config.json',
    });
  });

  it('tell a given file’s host from its name and place', () => {
    expect(guessHost('/x/claude_desktop_config.json')).toBe('claude-desktop');
    expect(guessHost('/repo/.mcp.json')).toBe('claude-code');
    expect(guessHost('/repo/.cursor/mcp.json')).toBe('cursor');
    expect(guessHost('/repo/.vscode/mcp.json')).toBe('vscode');
    expect(guessHost('/x/.codeium/windsurf/mcp_config.json')).toBe('windsurf');
    expect(guessHost('/x/servers.json')).toBeUndefined();
  });
});

describe('names and variables', () => {
  it('normalizes names to the registry’s rules', () => {
    expect(registryName('GitHub Tools')).toBe('GitHub-Tools');
    expect(registryName('@scope/server:main')).toBe('scope-server-main');
    expect(registryName('notes', 'cursor-')).toBe('cursor-notes');
    expect(registryName('…')).toBe('server');
    expect(registryName('x'.repeat(100))).toHaveLength(64);
  });

  it('reads a VS Code input from a variable in capitals', () => {
    expect(inputVariable('github-token')).toBe('GITHUB_TOKEN');
    expect(inputVariable('1password')).toBe('_1PASSWORD');
  });
});

describe('convertEntry', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'mcp-drift-host-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function entries(host: HostConfigFile['host'], doc: unknown) {
    const file = path.join(dir, `${host}.json`);
    writeFileSync(file, JSON.stringify(doc));
    const config = await readHostConfig(file, host, 'project', linux);
    return config.entries.map((entry) => convertEntry(config, entry, { context: linux }));
  }

  it('refuses a reference where the registry does not resolve one, saying why', async () => {
    const [args, url, file, websocket] = await entries('generic', {
      mcpServers: {
        args: { command: 'server', args: ['--token', '${TOKEN}'] },
        url: { url: 'https://${HOST}/mcp' },
        file: { url: 'https://x.test/mcp', headers: { Authorization: '${file:/run/token}' } },
        websocket: { type: 'ws', url: 'wss://x.test' },
      },
    });
    expect(args!.spec).toBeNull();
    expect(args!.reason).toContain(
      'argument 2 uses ${TOKEN}: mcp-drift passes a command line as written',
    );
    expect(url!.reason).toContain('url uses ${HOST}');
    expect(file!.reason).toContain('reads a file');
    expect(websocket!.reason).toBe('unsupported type "ws" (mcp-drift speaks stdio, http and sse)');
  });

  it('reports literal secrets in env, headers and the command line, and masks them where shown', async () => {
    const [stdio, http] = await entries('generic', {
      mcpServers: {
        stdio: {
          command: 'npx',
          args: ['server-postgres', 'postgresql://app:hunter2@db/app'],
          env: { API_KEY: 'abc123', NODE_ENV: 'production', TOKEN_FILE: '/run/token' },
        },
        http: {
          url: 'https://x.test/mcp',
          headers: { Authorization: 'Bearer abc', 'X-Trace': 'on' },
        },
      },
    });
    expect(stdio!.secrets.map((secret) => secret.field)).toEqual(['argument 2', 'env API_KEY']);
    expect(http!.secrets.map((secret) => secret.field)).toEqual(['header Authorization']);
    expect(
      maskArguments([
        'server-postgres',
        'postgresql://app:hunter2@db/app',
        '--api-key=k',
        '--token',
        't',
        '--auth-mode',
        'oauth',
      ]),
    ).toEqual([
      'server-postgres',
      'postgresql://app:****@db/app',
      '--api-key=****',
      '--token',
      '****',
      '--auth-mode',
      'oauth',
    ]);
  });

  it('reads Claude Code’s local scope for this project only', async () => {
    const file = path.join(dir, '.claude.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { mine: { command: 'a' } },
        projects: {
          '/projects/app': { mcpServers: { here: { command: 'b' } } },
          '/other': { mcpServers: { there: { command: 'c' } } },
        },
      }),
    );
    const config = await readHostConfig(file, 'claude-code', 'user', linux);
    expect(config.entries.map((entry) => [entry.name, entry.scope])).toEqual([
      ['mine', 'user'],
      ['here', 'local'],
    ]);
  });
});
