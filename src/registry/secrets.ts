import { MASK, maskValue } from './redact.js';
import { REFERENCE } from './server-spec.js';

/*
 * What looks like a secret in a registration: read by `server import` to report literal
 * secrets copied from a host's config, and by the views to mask them in a stdio command
 * line (env and header values are masked whole; see redact.ts).
 */

/** A name that says its value is secret: an env variable, a header, a command-line flag. */
const SECRET_NAME =
  /(token|secret|passw(?:or)?d|pwd|api[-_]?key|access[-_]?key|private[-_]?key|credential|auth|cookie|session|(?:^|[-_])pat$)/i;
/** …unless it names where a secret is, or how it is used (`TOKEN_FILE`, `--auth-mode`). */
const NOT_SECRET_NAME = /(dir|file|path|mode|url|uri|type|timeout|ttl|id|name|header)$/i;

/** Formats of well-known credentials, whatever they are called. */
const SECRET_FORMAT =
  /(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+)/g;

/** `scheme://user:password@host`: the password part. */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)([^\s/@]+)(@)/gi;

/** The value without its `${VAR}` references: what is written literally. */
function literalPart(value: string): string {
  return value.replace(REFERENCE, '');
}

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name);
}

/**
 * Whether an env or header value holds a literal secret: a literal under a secret name
 * (`GITHUB_TOKEN=ghp_…`, `Authorization: Bearer abc`), or a literal in a credential's
 * format under any name. Auth scheme words (`Bearer`) and references do not count.
 */
export function holdsLiteralSecret(name: string, value: string): boolean {
  const literal = literalPart(value)
    .replace(/\b(bearer|basic|token|digest)\b/gi, '')
    .trim();
  if (literal === '') return false;
  // search(), unlike test(), ignores a global pattern's lastIndex.
  return (
    isSecretName(name) || literal.search(SECRET_FORMAT) >= 0 || literal.search(URL_PASSWORD) >= 0
  );
}

/**
 * A stdio command line as it may be shown: credentials in a known format, a URL's
 * password, and the value of a flag named like a secret (`--api-key=…`, `--token …`)
 * masked; the rest verbatim, so that the command stays recognisable.
 */
export function maskArguments(args: readonly string[]): string[] {
  return args.map((arg, index) => {
    const previous = index > 0 ? args[index - 1]! : '';
    if (/^--?[A-Za-z]/.test(previous) && !previous.includes('=') && isSecretName(previous)) {
      if (!arg.startsWith('-')) return maskValue(arg);
    }
    const flag = /^(--?[A-Za-z][\w-]*=)(.*)$/s.exec(arg);
    if (flag && isSecretName(flag[1]!.slice(0, -1)) && flag[2] !== '') {
      return `${flag[1]}${maskValue(flag[2]!)}`;
    }
    return maskSecretFormats(arg);
  });
}

/** Credentials in a known format and URL passwords in a text, masked. */
export function maskSecretFormats(text: string): string {
  return text.replace(SECRET_FORMAT, MASK).replace(URL_PASSWORD, `$1${MASK}$3`);
}

/** Whether a command-line argument (with the one before it) holds a literal secret. */
export function argumentHoldsSecret(args: readonly string[], index: number): boolean {
  const arg = args[index]!;
  return maskArguments(args)[index] !== arg && literalPart(arg) !== '';
}
