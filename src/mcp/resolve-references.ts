import { DriftError } from '../errors.js';
import type { EnvironmentMap } from './connect-spec.js';

/** `${VAR}`, or `${VAR:-default}`: the default when VAR is unset or empty, as in a shell. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

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
  const resolved: Record<string, string> = {};
  const missing: string[] = [];
  for (const [key, value] of Object.entries(values ?? {})) {
    resolved[key] = value.replace(REFERENCE, (reference, name: string, fallback?: string) => {
      const replacement = environment[name];
      if (fallback !== undefined && !replacement) return fallback;
      if (replacement === undefined) {
        missing.push(`${name} (in ${what(key)})`);
        return reference;
      }
      return replacement;
    });
  }
  if (missing.length > 0) {
    throw new DriftError(
      'CONFIG_INVALID',
      `environment variable${missing.length > 1 ? 's' : ''} not set: ${missing.join(', ')}; ` +
        `set ${missing.length > 1 ? 'them' : 'it'} in the service environment or change the server configuration`,
    );
  }
  return resolved;
}

/** The names referenced by a value, for showing a configuration without resolving it. */
export function referencedVariables(value: string): string[] {
  return [...value.matchAll(REFERENCE)].map((match) => match[1] ?? '');
}
