import { readInputFile } from '../input-file.js';
import path from 'node:path';
import { DriftError } from '../errors.js';
import { JsonSyntaxError, parseJsonSource, type JsonSource } from '../json-source.js';

/*
 * Where MCP hosts keep their server lists, and reading those files. The locations are the
 * ones each host documents for Linux and macOS (docs/import.md cites them); no file here
 * is ever written. Pure of any database: `lock` and `verify` read host configs in CI.
 */

import { HOSTS, type Host, type ImportSource } from '../vocabulary/hosts.js';
import { isObject } from '../is-object.js';

export { HOSTS, type Host };
/** A file given on the command line that names no known host. */
export type HostOrGeneric = ImportSource;

export interface HostConfigLocation {
  host: Host;
  /** `user`: the person's own config; `project`: one in the project directory. */
  scope: 'user' | 'project';
  path: string;
}

/** What the locations depend on; the CLI passes the process's own. */
export interface HostContext {
  home: string;
  /** The project a per-project config belongs to: the working directory. */
  projectDir: string;
  platform: NodeJS.Platform;
  /** XDG_CONFIG_HOME, where Electron apps (Claude Desktop, VS Code) keep their config on Linux. */
  xdgConfigHome?: string | undefined;
}

export function hostConfigLocations(
  context: HostContext,
  hosts: readonly Host[] = HOSTS,
): HostConfigLocation[] {
  const { home, projectDir } = context;
  const mac = context.platform === 'darwin';
  const appData = mac
    ? path.join(home, 'Library', 'Application Support')
    : context.xdgConfigHome || path.join(home, '.config');
  const all: HostConfigLocation[] = [
    {
      host: 'claude-desktop',
      scope: 'user',
      path: path.join(appData, 'Claude', 'claude_desktop_config.json'),
    },
    // Its user scope is the top-level mcpServers; the servers of this project only
    // ("local" scope) are under projects[projectDir] in the same file.
    { host: 'claude-code', scope: 'user', path: path.join(home, '.claude.json') },
    { host: 'claude-code', scope: 'project', path: path.join(projectDir, '.mcp.json') },
    { host: 'cursor', scope: 'user', path: path.join(home, '.cursor', 'mcp.json') },
    { host: 'cursor', scope: 'project', path: path.join(projectDir, '.cursor', 'mcp.json') },
    { host: 'vscode', scope: 'user', path: path.join(appData, 'Code', 'User', 'mcp.json') },
    { host: 'vscode', scope: 'project', path: path.join(projectDir, '.vscode', 'mcp.json') },
    {
      host: 'windsurf',
      scope: 'user',
      path: path.join(home, '.codeium', 'windsurf', 'mcp_config.json'),
    },
  ];
  return all.filter((location) => hosts.includes(location.host));
}

/** The host a file belongs to, from where it is and what it is called. */
export function guessHost(file: string): Host | undefined {
  const base = path.basename(file);
  const dir = path.basename(path.dirname(file));
  if (base === 'claude_desktop_config.json') return 'claude-desktop';
  if (base === '.claude.json' || base === '.mcp.json') return 'claude-code';
  if (base === 'mcp.json' && dir === '.cursor') return 'cursor';
  if (base === 'mcp.json' && (dir === '.vscode' || dir === 'User')) return 'vscode';
  if (base === 'mcp_config.json') return 'windsurf';
  return undefined;
}

/** One server of a host config, as written there. */
export interface HostEntry {
  /** Its key in the file. */
  name: string;
  value: unknown;
  /** Line of its key in the file. */
  line: number;
  /** Claude Code's ~/.claude.json: `local` for the servers of the current project. */
  scope: 'user' | 'project' | 'local';
}

/** VS Code's `inputs`: what a `${input:ID}` asks the user for. */
export interface HostInput {
  id: string;
  description: string | null;
  password: boolean;
}

export interface HostConfigFile {
  host: HostOrGeneric;
  path: string;
  scope: 'user' | 'project';
  entries: HostEntry[];
  inputs: HostInput[];
}

/** Host configs are a few kilobytes; a bigger one is not a host's, and parsing it costs memory. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/** No host lists this many servers; more would be an import of hours, not a config. */
export const MAX_CONFIG_ENTRIES = 10_000;

function overTheLimit(count: number): string {
  return `${count.toLocaleString('en-US')} server entries, over the limit of ${MAX_CONFIG_ENTRIES.toLocaleString('en-US')}`;
}

/**
 * How many server entries a config without comments holds, by JSON.parse: a hundred times
 * faster than the parse that keeps positions, so that a huge config is refused before that
 * parse takes seconds. Undefined when the text is not plain JSON (comments, trailing commas).
 */
function entriesOfPlainJson(text: string): number | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(doc)) return undefined;
  const lists = [
    doc['mcpServers'],
    doc['servers'],
    isObject(doc['mcp']) ? doc['mcp']['servers'] : undefined,
  ];
  return lists.reduce<number>(
    (sum, list) => sum + (isObject(list) ? Object.keys(list).length : 0),
    0,
  );
}

/**
 * Reads one host config. Comments and trailing commas are accepted in every host's file;
 * a file that cannot be read or parsed, or whose server list is not an object, is an
 * INVALID_INPUT error naming the file, the line and the problem.
 */
export async function readHostConfig(
  file: string,
  host: HostOrGeneric,
  scope: 'user' | 'project',
  context: HostContext,
): Promise<HostConfigFile> {
  const text = await readInputFile(file, { maxBytes: MAX_CONFIG_BYTES });
  const quickCount = entriesOfPlainJson(text);
  if (quickCount !== undefined && quickCount > MAX_CONFIG_ENTRIES) {
    throw new DriftError('INVALID_INPUT', `${file}: ${overTheLimit(quickCount)}`);
  }
  let source: JsonSource;
  try {
    source = parseJsonSource(text, { comments: true, positionDepth: 4 });
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw new DriftError(
        'INVALID_INPUT',
        `${file}:${error.position.line}:${error.position.column}: ${error.problem}`,
      );
    }
    throw error;
  }
  const fail = (at: (string | number)[], problem: string): never => {
    const line = source.position(at)?.line ?? 1;
    throw new DriftError('INVALID_INPUT', `${file}:${line}: ${problem}`);
  };
  const doc = source.value;
  if (!isObject(doc)) return fail([], 'a host config must be a JSON object');

  const entries: HostEntry[] = [];
  const take = (at: (string | number)[], entryScope: HostEntry['scope']) => {
    let list: unknown = doc;
    for (const key of at) list = isObject(list) ? list[key] : undefined;
    if (list === undefined) return;
    if (!isObject(list)) fail(at, `"${at.join('.')}" must be an object of servers by name`);
    const names = Object.keys(list as Record<string, unknown>);
    if (entries.length + names.length > MAX_CONFIG_ENTRIES) {
      fail(at, overTheLimit(entries.length + names.length));
    }
    for (const [name, value] of Object.entries(list as Record<string, unknown>)) {
      entries.push({
        name,
        value,
        line: source.position([...at, name])?.line ?? 1,
        scope: entryScope,
      });
    }
  };
  // VS Code's mcp.json has `servers`; its settings.json had `mcp.servers`; the others `mcpServers`.
  take(['mcpServers'], scope);
  take(['servers'], scope);
  take(['mcp', 'servers'], scope);
  if (host === 'claude-code' && isObject(doc['projects'])) {
    // ~/.claude.json keys each project by its absolute path.
    const project = path.resolve(context.projectDir);
    if (isObject(doc['projects'][project])) take(['projects', project, 'mcpServers'], 'local');
  }

  const inputs: HostInput[] = [];
  for (const input of Array.isArray(doc['inputs']) ? doc['inputs'] : []) {
    if (isObject(input) && typeof input['id'] === 'string') {
      inputs.push({
        id: input['id'],
        description: typeof input['description'] === 'string' ? input['description'] : null,
        password: input['password'] === true,
      });
    }
  }
  return { host, path: file, scope, entries, inputs };
}
