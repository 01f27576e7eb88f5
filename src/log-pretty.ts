/*
 * The log as a person at a terminal reads it: one line per event, `HH:MM:SS LEVEL`, then
 * the line's headline when it has one, else who it is about (server or component), its
 * message and its fields as `key=value`. It formats the finished JSON line (secrets masked,
 * size capped: log-lines.ts), so both formats say the same and mask the same. Our own few
 * lines, not pino-pretty: every value is server text that must pass sanitizeForTerminal on
 * its way out (pino-pretty would print what JSON.parse gives back, escape sequences
 * included), and a headline replaces the fields rather than joining them.
 */

import { sanitizeForTerminal } from './text/terminal-text.js';

export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields the line's layout already shows, or that say nothing at a terminal. */
const SHOWN_APART = new Set([
  'level',
  'time',
  'service',
  'msg',
  'headline',
  'server',
  'component',
  'pid',
  'hostname',
]);

/** `HH:MM` (or with seconds) of a time, in this machine's time zone: what a person reads. */
export function clockTime(at: Date, seconds = false): string {
  const parts = [at.getHours(), at.getMinutes(), ...(seconds ? [at.getSeconds()] : [])];
  return parts.map((part) => String(part).padStart(2, '0')).join(':');
}

function valueText(value: unknown): string {
  if (typeof value === 'string') {
    const clean = sanitizeForTerminal(value);
    return clean === '' || /\s|"|=/.test(clean) ? JSON.stringify(clean) : clean;
  }
  if (Array.isArray(value)) return value.map((item) => valueText(item)).join(',');
  return sanitizeForTerminal(String(value));
}

/** `key=value` pairs, nested objects as `outer.inner=value`; an error as its message. */
function fieldTexts(fields: Record<string, unknown>, prefix = ''): string[] {
  const texts: string[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (prefix === '' && SHOWN_APART.has(key)) continue;
    const name = `${prefix}${key}`;
    if (value === undefined) continue;
    if (key === 'err' && typeof value === 'object' && value !== null) {
      const err = value as { message?: unknown; type?: unknown; code?: unknown };
      texts.push(`${name}=${valueText(String(err.message ?? err.type ?? 'error'))}`);
      if (err.code !== undefined) texts.push(`${name}.code=${valueText(err.code)}`);
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      texts.push(...fieldTexts(value as Record<string, unknown>, `${name}.`));
    } else {
      texts.push(`${name}=${valueText(value)}`);
    }
  }
  return texts;
}

/** One finished JSON log line (with its newline) as the line a terminal shows. */
export function prettyLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error();
    record = parsed as Record<string, unknown>;
  } catch {
    return `${sanitizeForTerminal(line.trimEnd())}\n`;
  }
  const time = typeof record['time'] === 'string' ? new Date(record['time']) : new Date();
  const level = LEVEL_NAMES[Number(record['level'])] ?? 'LOG';
  const start = `${clockTime(Number.isNaN(time.getTime()) ? new Date() : time, true)} ${level.padEnd(5)}`;
  if (typeof record['headline'] === 'string') {
    return `${start} ${sanitizeForTerminal(record['headline'])}\n`;
  }
  const about = record['server'] ?? record['component'];
  const subject = typeof about === 'string' ? `${sanitizeForTerminal(about)}: ` : '';
  const message = sanitizeForTerminal(String(record['msg'] ?? ''));
  const fields = fieldTexts(record);
  return `${start} ${subject}${message}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}\n`;
}
