import { REFERENCE } from './server-spec.js';

export const MASK = '****';
/** Words that are conventionally not secret in a header value, e.g. `Bearer ${TOKEN}`. */
const AUTH_SCHEMES = new Set(['bearer', 'basic', 'token', 'digest']);

/**
 * A header or env value as it may be shown: `${VAR}` references verbatim (a default masked), every literal
 * run masked except whitespace and an auth scheme word. A literal secret never reaches
 * output; the shape of a reference-based value stays readable.
 */
export function maskValue(value: string): string {
  let masked = '';
  let last = 0;
  for (const match of value.matchAll(REFERENCE)) {
    masked += maskLiteral(value.slice(last, match.index));
    // A default is a literal written in the configuration: it may be a secret too.
    masked += match[2] ? `\${${match[1]}:-${maskLiteral(match[2])}}` : match[0];
    last = match.index + match[0].length;
  }
  return masked + maskLiteral(value.slice(last));
}

function maskLiteral(text: string): string {
  if (text === '') return '';
  return text
    .split(/(\s+)/)
    .map((part) =>
      part === '' || /^\s+$/.test(part) || AUTH_SCHEMES.has(part.toLowerCase()) ? part : MASK,
    )
    .join('');
}

export function maskValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, maskValue(value)]));
}
