import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { DriftError } from '../errors.js';
import type { EnvironmentMap } from '../mcp/connect-spec.js';
import { resolveReferences } from '../mcp/resolve-references.js';
import type { ServerSpec } from './server-spec.js';

/*
 * What can be told about a registration the moment it is written, before serve ever connects:
 * a stdio command that is not there, a URL nobody answers at, a `${VAR}` that is not set.
 * They are warnings by default (a server may be registered before it is installed or started,
 * and serve may run with another environment), errors with --check. Nothing here runs the
 * server or sends it anything beyond one plain GET without the configured headers.
 */

export interface EarlyProblem {
  server: string;
  kind: 'command' | 'url' | 'variable';
  /** The whole sentence: what is wrong and what happens to the server because of it. */
  message: string;
}

export interface EarlyCheckOptions {
  /** Where `${VAR}` references are looked up and PATH is read: this process's environment. */
  environment: EnvironmentMap;
  /** How long a URL has to answer. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 3_000;

export async function earlyProblems(
  spec: ServerSpec,
  options: EarlyCheckOptions,
): Promise<EarlyProblem[]> {
  const problems: EarlyProblem[] = [];
  const add = (kind: EarlyProblem['kind'], message: string) =>
    problems.push({ server: spec.name, kind, message });

  const variables = unsetVariables(spec, options.environment);
  if (variables) add('variable', `server ${spec.name}: ${variables}`);

  if (spec.transport === 'stdio' && spec.command !== null) {
    const found = await findExecutable(spec.command, spec, options.environment);
    if (!found) {
      add(
        'command',
        `server ${spec.name}: command "${spec.command}" is not ${spec.command.includes('/') ? 'an executable file' : 'on PATH'} here; probes will fail until it is installed where serve runs`,
      );
    }
  }
  if (spec.transport !== 'stdio' && spec.url !== null) {
    const failure = await urlFailure(spec.url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    if (failure) {
      add(
        'url',
        `server ${spec.name}: ${originOf(spec.url)} does not answer (${failure}); it will be recorded as down until it does`,
      );
    }
  }
  return problems;
}

/** The error a --check turns the problems into: exit 4 when only URLs failed, else 2. */
export function earlyCheckError(problems: EarlyProblem[]): DriftError {
  const onlyRemote = problems.every((problem) => problem.kind === 'url');
  return new DriftError(
    onlyRemote ? 'REMOTE_UNREACHABLE' : 'INVALID_INPUT',
    `nothing written (--check): ${problems.map((problem) => problem.message).join('; ')}`,
  );
}

/** resolveReferences' own sentence for what is missing, so the wording is serve's. */
function unsetVariables(spec: ServerSpec, environment: EnvironmentMap): string | null {
  try {
    resolveReferences(spec.headers, environment, (key) => `header ${key}`);
    resolveReferences(spec.env, environment, (key) => `env ${key}`);
    return null;
  } catch (error) {
    if (error instanceof DriftError) return error.message;
    throw error;
  }
}

/**
 * Where the command would be found: a path (relative to the server's cwd), or the first
 * PATH entry holding it, PATH being the server's own env PATH when it sets one literally.
 */
async function findExecutable(
  command: string,
  spec: ServerSpec,
  environment: EnvironmentMap,
): Promise<string | null> {
  const executable = async (file: string) =>
    access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
  if (command.includes('/')) {
    const file = path.resolve(spec.cwd ?? process.cwd(), command);
    return (await executable(file)) ? file : null;
  }
  const ownPath = spec.env['PATH'];
  const searchPath =
    ownPath !== undefined && !ownPath.includes('${') ? ownPath : environment['PATH'];
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, command);
    if (await executable(file)) return file;
  }
  return null;
}

/** null when anything answers over HTTP (any status counts: the server is there). */
async function urlFailure(url: string, timeoutMs: number): Promise<string | null> {
  try {
    const answer = await fetch(url, {
      redirect: 'manual',
      headers: { accept: 'application/json, text/event-stream' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    // An SSE endpoint keeps the body open: the headers were the answer.
    await answer.body?.cancel().catch(() => {});
    return null;
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      return `no answer within ${timeoutMs / 1000} s`;
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? (error as Error).message;
  }
}

/** The URL without its path and query, which may carry a secret. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the URL';
  }
}
