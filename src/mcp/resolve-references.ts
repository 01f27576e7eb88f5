import { DriftError } from '../errors.js';
import type { ConnectSpec, EnvironmentMap } from './connect-spec.js';

/** `${VAR}`, or `${VAR:-default}`: the default when VAR is unset or empty, as in a shell. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** What one reference stands for in the environment; undefined: it cannot be resolved. */
function valueOf(
  name: string,
  fallback: string | undefined,
  environment: EnvironmentMap,
): string | undefined {
  const value = environment[name];
  if (fallback !== undefined && !value) return fallback;
  return value;
}

/** A `${VAR}` the environment cannot resolve: VAR is unset and the reference has no default. */
export interface MissingReference {
  /** The header or environment entry whose value holds the reference. */
  key: string;
  variable: string;
}

/**
 * The references in the values that the environment cannot resolve, in order, each variable
 * once per entry. Pure: serve asks it once, before connecting, since its environment does
 * not change while it runs.
 */
export function missingReferences(
  values: Readonly<Record<string, string>> | undefined,
  environment: EnvironmentMap,
): MissingReference[] {
  const missing: MissingReference[] = [];
  for (const [key, value] of Object.entries(values ?? {})) {
    for (const [, name = '', fallback] of value.matchAll(REFERENCE)) {
      const known = missing.some((entry) => entry.key === key && entry.variable === name);
      if (!known && valueOf(name, fallback, environment) === undefined) {
        missing.push({ key, variable: name });
      }
    }
  }
  return missing;
}

/**
 * What is wrong, said the same way at connect time and by serve's configuration state:
 * "environment variable not set: TOKEN (in header Authorization of server "api"); …".
 */
export function missingReferencesMessage(
  missing: readonly MissingReference[],
  what: (key: string) => string,
): string {
  const many = missing.length > 1;
  return (
    `environment variable${many ? 's' : ''} not set: ` +
    `${missing.map((entry) => `${entry.variable} (in ${what(entry.key)})`).join(', ')}; ` +
    `set ${many ? 'them' : 'it'} in the service environment or change the server configuration`
  );
}

/**
 * Replaces every `${VAR}` in the values with `environment[VAR]` (`${VAR:-default}`: the
 * default when VAR is unset or empty). Resolution happens at connect time only, so a
 * rotated secret is picked up on the next connection and the stored configuration never
 * holds the value.
 *
 * `what` names the field in the error ("header Authorization of server github"), because
 * "variable X is not set" alone does not tell the operator which server needs it.
 */
export function resolveReferences(
  values: Readonly<Record<string, string>> | undefined,
  environment: EnvironmentMap,
  what: (key: string) => string,
): Record<string, string> {
  const missing = missingReferences(values, environment);
  if (missing.length > 0) {
    throw new DriftError('CONFIG_INVALID', missingReferencesMessage(missing, what));
  }
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    resolved[key] = value.replace(
      REFERENCE,
      (reference, name: string, fallback?: string) =>
        valueOf(name, fallback, environment) ?? reference,
    );
  }
  return resolved;
}

/**
 * Where an http or sse server's OAuth client secret reference sits among its headers while
 * references are resolved; a space keeps it apart from every valid header name.
 */
export const OAUTH_SECRET_KEY = 'oauth client secret';

/**
 * The part of a connection whose values may hold references: a stdio server's environment,
 * an http or sse server's headers and OAuth client secret; and how an error names one of
 * its entries.
 */
export function referencingField(spec: ConnectSpec): {
  values: Readonly<Record<string, string>> | undefined;
  what: (key: string) => string;
} {
  if (spec.transport === 'stdio') {
    return { values: spec.env, what: (key) => `env ${key} of server "${spec.name}"` };
  }
  const secret = spec.oauth?.clientSecret;
  return {
    values: secret ? { ...spec.headers, [OAUTH_SECRET_KEY]: secret } : spec.headers,
    what: (key) =>
      key === OAUTH_SECRET_KEY
        ? `the OAuth client secret of server "${spec.name}"`
        : `header ${key} of server "${spec.name}"`,
  };
}

/**
 * Why connecting to the server cannot work in this environment, or null: the variables its
 * references need that are not set, and the message the connection would fail with.
 */
export function unresolvableReferences(
  spec: ConnectSpec,
  environment: EnvironmentMap,
): { variables: string[]; problem: string } | null {
  const field = referencingField(spec);
  const missing = missingReferences(field.values, environment);
  if (missing.length === 0) return null;
  return {
    variables: [...new Set(missing.map((entry) => entry.variable))],
    problem: missingReferencesMessage(missing, field.what),
  };
}

/** The names referenced by a value, for showing a configuration without resolving it. */
export function referencedVariables(value: string): string[] {
  return [...value.matchAll(REFERENCE)].map((match) => match[1] ?? '');
}
