import { homedir } from 'node:os';
import path from 'node:path';
import type { Environment } from '../config/load.js';
import { HOSTS, type Host, type HostContext } from '../registry/host-configs.js';
import type { Problems } from '../problems.js';

/* Host configs as the commands that read them (server import, lock, verify) see them. */

/** Where host configs are looked for: this user's home, this directory as the project. */
export function hostContextOf(env: Environment): HostContext {
  return {
    home: env['HOME'] || homedir(),
    projectDir: process.cwd(),
    platform: process.platform,
    xdgConfigHome: env['XDG_CONFIG_HOME'],
  };
}

export function hostFlag(problems: Problems, value: string | undefined): Host | undefined {
  if (value === undefined) return undefined;
  if ((HOSTS as readonly string[]).includes(value)) return value as Host;
  problems.add('USAGE', `invalid --from "${value}": use one of ${HOSTS.join(', ')}`);
  return undefined;
}

/** `~/.cursor/mcp.json`, `.mcp.json`: a path as a person recognises it. */
export function shownPath(file: string, context: HostContext): string {
  const relative = path.relative(context.projectDir, file);
  if (!relative.startsWith('..') && !path.isAbsolute(relative)) return relative;
  if (file.startsWith(context.home + path.sep)) return `~${file.slice(context.home.length)}`;
  return file;
}
