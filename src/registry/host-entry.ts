import { maskQuerySecrets } from '../log-lines.js';
import { DriftError } from '../errors.js';
import { canonicalize, sha256Hex } from '../listings/canonical.js';
import type { HostConfigFile, HostContext, HostEntry } from './host-configs.js';
import { buildSpec, type RegistrationInput } from './registration-input.js';
import { argumentHoldsSecret, holdsLiteralSecret, maskArguments } from './secrets.js';
import { MASK } from './redact.js';
import type { ServerSpec, Transport } from './server-spec.js';
import { isObject } from '../is-object.js';

/*
 * One server of a host config turned into a registration, by the registry's rules.
 * Variables become what the registry resolves at connect time, never their values:
 *   ${VAR}, ${env:VAR}          → ${VAR}
 *   ${VAR:-default}             → kept: VAR when set and not empty, else the default
 *   ${input:ID} (VS Code)       → ${ID} in capitals, with a note to set it
 *   ${workspaceFolder}, ${userHome}, ${workspaceFolderBasename}, ${pathSeparator}, ${/}
 *                               → written out (paths, not secrets)
 * The registry resolves references only in env and header values: a reference in a
 * command, its arguments or its working directory makes the entry unimportable (the
 * reason says so), and in a URL only a `${VAR:-default}` can stand, as its default.
 */

export interface SecretNote {
  /** e.g. `env GITHUB_TOKEN`, `header Authorization`, `argument 3`. */
  field: string;
  advice: string;
}

export interface ConvertedEntry {
  file: HostConfigFile;
  entry: HostEntry;
  /** The registry name: normalized, with --prefix. */
  name: string;
  /** null when the entry cannot be imported, and `reason` says why. */
  spec: ServerSpec | null;
  reason: string | null;
  enabled: boolean;
  /** What the import changed or left out, for the person to know (inputs, defaults…). */
  notes: string[];
  secrets: SecretNote[];
  /** sha256 of what the entry registers: how a later import tells it changed. */
  hash: string | null;
}

/** A registry name from a host's: what the registry refuses becomes `-`; 64 characters at most. */
export function registryName(entry: string, prefix = ''): string {
  const name = `${prefix}${entry}`
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64)
    .replace(/[-.]+$/, '');
  return name === '' ? 'server' : name;
}

/** `${input:github-token}` asks for a value; the registry reads it from GITHUB_TOKEN. */
export function inputVariable(id: string): string {
  const name = id
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
  return name === '' ? 'INPUT' : /^\d/.test(name) ? `_${name}` : name;
}

type Place = 'value' | 'command line' | 'url';

const VARIABLE = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

class Translation {
  readonly problems: string[] = [];
  readonly notes: string[] = [];

  constructor(
    private readonly file: HostConfigFile,
    private readonly context: HostContext,
  ) {}

  private predefined(name: string): string | undefined {
    const project = this.context.projectDir;
    switch (name) {
      case 'workspaceFolder':
        return project;
      case 'workspaceFolderBasename':
        return project.split('/').filter(Boolean).at(-1) ?? project;
      case 'userHome':
        return this.context.home;
      case 'pathSeparator':
      case '/':
        return '/';
      default:
        return undefined;
    }
  }

  /** `text` as the registry takes it in `place` (`what` names it in messages). */
  text(text: string, place: Place, what: string): string {
    return text.replace(VARIABLE, (whole, inner: string) => {
      const known = this.predefined(inner);
      if (known !== undefined) return known;
      let reference: string | undefined;
      let fallback: string | undefined;
      const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
      const withDefault = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/s.exec(inner);
      const input = /^input:(.+)$/s.exec(inner);
      if (NAME.test(inner)) reference = inner;
      else if (env) reference = env[1]!;
      else if (withDefault) [reference, fallback] = [withDefault[1]!, withDefault[2]!];
      else if (input) {
        reference = inputVariable(input[1]!);
        const declared = this.file.inputs.find((candidate) => candidate.id === input[1]);
        const asks = declared?.description ? ` ("${declared.description}")` : '';
        this.notes.push(
          `${what}: VS Code's \${input:${input[1]}}${asks} is read from \${${reference}}; set ${reference} where mcp-drift runs`,
        );
      } else if (/^file:/.test(inner)) {
        this.problems.push(
          `${what} reads a file (${whole}): mcp-drift does not copy files into a registration; write the value as \${VAR} and set VAR where mcp-drift runs`,
        );
        return whole;
      } else {
        this.problems.push(`${what} uses ${whole}, which mcp-drift cannot resolve`);
        return whole;
      }
      if (place === 'value')
        return fallback === undefined ? `\${${reference}}` : `\${${reference}:-${fallback}}`;
      if (place === 'url' && fallback !== undefined) {
        this.notes.push(
          `${what}: ${whole} is registered as its default, ${fallback}; mcp-drift takes a URL as written (change it with server edit --url)`,
        );
        return fallback;
      }
      this.problems.push(
        place === 'url'
          ? `${what} uses ${whole}: mcp-drift takes a URL as written; register it with server add --url, or write a header \${VAR} for a secret`
          : `${what} uses ${whole}: mcp-drift passes a command line as written and resolves \${VAR} only in env and header values; move the value into env`,
      );
      return whole;
    });
  }
}

function stringMap(value: unknown, what: string, problems: string[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) {
    problems.push(`${what} must be an object`);
    return {};
  }
  const result: Record<string, string> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') result[key] = item;
    else if (typeof item === 'number' || typeof item === 'boolean') result[key] = String(item);
    else problems.push(`${what} ${key} must be a string`);
  }
  return result;
}

const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamablehttp', 'streamable_http']);

/** The transport an entry asks for: `type` (or `transport`), else what its fields imply. */
function transportOf(
  value: Record<string, unknown>,
  url: string | undefined,
  notes: string[],
): Transport | string {
  const declared = value['type'] ?? value['transport'];
  if (typeof declared === 'string') {
    const kind = declared.toLowerCase();
    if (kind === 'stdio') return 'stdio';
    if (HTTP_TYPES.has(kind)) return 'http';
    if (kind === 'sse') return 'sse';
    return `unsupported type "${declared}" (mcp-drift speaks stdio, http and sse)`;
  }
  if (typeof value['command'] === 'string') return 'stdio';
  if (url !== undefined) {
    // Hosts that take a bare url try Streamable HTTP first; a path ending in /sse is the
    // legacy transport's conventional endpoint.
    if (/\/sse\/?$/.test(url.split('?')[0]!)) {
      notes.push('no type given: the URL ends in /sse, so it is registered as legacy SSE');
      return 'sse';
    }
    return 'http';
  }
  return 'neither "command" nor "url" is given';
}

export function convertEntry(
  file: HostConfigFile,
  entry: HostEntry,
  options: { prefix?: string; context: HostContext },
): ConvertedEntry {
  const name = registryName(entry.name, options.prefix);
  const translation = new Translation(file, options.context);
  const { problems, notes } = translation;
  const secrets: SecretNote[] = [];
  const result = (spec: ServerSpec | null, enabled: boolean): ConvertedEntry => ({
    file,
    entry,
    name,
    spec,
    reason: spec === null ? problems.join('; ') : null,
    enabled,
    notes,
    secrets,
    hash: spec === null ? null : entryHash(spec, enabled),
  });

  const value = entry.value;
  if (!isObject(value)) {
    problems.push('an entry must be an object');
    return result(null, true);
  }
  const enabled = value['disabled'] !== true && value['enabled'] !== false;
  if (!enabled) notes.push('disabled in the host: registered disabled (server enable turns it on)');
  const rawUrl = value['url'] ?? value['serverUrl'];
  if (rawUrl !== undefined && typeof rawUrl !== 'string') problems.push('url must be a string');
  const url = typeof rawUrl === 'string' ? translation.text(rawUrl, 'url', 'url') : undefined;
  const transport = transportOf(value, url, notes);
  if (transport !== 'stdio' && transport !== 'http' && transport !== 'sse') {
    problems.push(transport);
    return result(null, enabled);
  }
  if (typeof value['envFile'] === 'string') {
    notes.push(
      `envFile ${value['envFile']} is not imported: mcp-drift never copies a file's values; set them where mcp-drift runs and write env values as \${VAR}`,
    );
  }

  const input: RegistrationInput = {};
  if (transport === 'stdio') {
    const command = value['command'];
    const args = value['args'] ?? [];
    if (typeof command !== 'string' || command === '')
      problems.push('a stdio entry needs a "command" string');
    if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) {
      problems.push('"args" must be an array of strings');
    }
    const line = [command, ...(Array.isArray(args) ? args : [])]
      .filter((part): part is string => typeof part === 'string')
      .map((part, index) =>
        translation.text(part, 'command line', index === 0 ? 'the command' : `argument ${index}`),
      );
    line.forEach((_, index) => {
      if (index > 0 && argumentHoldsSecret(line, index)) {
        secrets.push({
          field: `argument ${index}`,
          advice:
            'a literal secret on the command line; pass it through env as ${VAR} instead, if the server takes it from its environment',
        });
      }
    });
    const env = stringMap(value['env'], 'env', problems);
    for (const [key, text] of Object.entries(env)) {
      env[key] = translation.text(text, 'value', `env ${key}`);
      if (holdsLiteralSecret(key, env[key])) {
        secrets.push({
          field: `env ${key}`,
          advice: `a literal secret, registered as written and shown masked: write it as \${${key}} in the host config and set ${key} where mcp-drift runs`,
        });
      }
    }
    input.stdio = true;
    input.commandLine = line;
    input.env = Object.entries(env).map(([key, text]) => `${key}=${text}`);
    if (typeof value['cwd'] === 'string') {
      input.cwd = translation.text(value['cwd'], 'command line', 'cwd');
    }
  } else {
    if (url === undefined) problems.push(`a ${transport} entry needs a "url" string`);
    const headers = stringMap(value['headers'], 'headers', problems);
    for (const [key, text] of Object.entries(headers)) {
      headers[key] = translation.text(text, 'value', `header ${key}`);
      if (holdsLiteralSecret(key, headers[key])) {
        const variable = `${inputVariable(name)}_${inputVariable(key)}`;
        secrets.push({
          field: `header ${key}`,
          advice: `a literal secret, registered as written and shown masked: write it with \${${variable}} in the host config (e.g. "Bearer \${${variable}}") and set ${variable} where mcp-drift runs`,
        });
      }
    }
    input.url = url;
    input.transport = transport;
    input.header = Object.entries(headers).map(([key, text]) => `${key}=${text}`);
    Object.assign(
      input,
      oauthInput(value['oauth'], problems, (text) =>
        translation.text(text, 'value', 'oauth clientSecret'),
      ),
    );
  }
  if (problems.length > 0) return result(null, enabled);
  try {
    return result(buildSpec(name, input), enabled);
  } catch (error) {
    if (!(error instanceof DriftError)) throw error;
    problems.push(error.message);
    return result(null, enabled);
  }
}

/**
 * An entry's `oauth` object (mcp-drift's own key, docs/oauth.md):
 * `{ "grant": "client_credentials", "clientId": "…", "clientSecret": "${VAR}", "scopes": […] }`,
 * as the flags of `server add` would give it; the registry's checks apply.
 */
function oauthInput(
  value: unknown,
  problems: string[],
  translate: (text: string) => string,
): RegistrationInput {
  if (value === undefined) return {};
  if (!isObject(value)) {
    problems.push('"oauth" must be an object');
    return {};
  }
  const text = (key: string): string | undefined => {
    const field = value[key];
    if (field === undefined) return undefined;
    if (typeof field !== 'string') problems.push(`oauth.${key} must be a string`);
    return typeof field === 'string' ? field : undefined;
  };
  const scopes = value['scopes'];
  if (
    scopes !== undefined &&
    !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string'))
  ) {
    problems.push('oauth.scopes must be an array of strings');
  }
  const secret = text('clientSecret');
  return {
    oauth: true,
    oauthGrant: text('grant'),
    oauthClientId: text('clientId'),
    oauthClientSecret: secret === undefined ? undefined : translate(secret),
    oauthScope: Array.isArray(scopes) ? (scopes as string[]) : undefined,
  };
}

/** What an entry registers, the fields an import sets, as one hash. */
export function entryHash(spec: ServerSpec, enabled: boolean): string {
  const { transport, command, args, env, cwd, url, headers } = spec;
  // Without OAuth the hash is what it was before OAuth existed: imports stay unchanged.
  const oauth = spec.oauth ? { oauth: spec.oauth } : {};
  return sha256Hex(
    canonicalize({ transport, command, args, env, cwd, url, headers, enabled, ...oauth }),
  );
}

/** What the entry runs or reaches, as it may be shown. */
export function entryTarget(spec: ServerSpec): string {
  if (spec.transport === 'stdio')
    return maskArguments([spec.command ?? '', ...spec.args]).join(' ');
  if (spec.url === null) return '';
  const parsed = new URL(spec.url);
  if (parsed.password) parsed.password = MASK;
  return maskQuerySecrets(parsed.toString());
}
