/**
 * Text hidden inside a string in an encoding a reader does not read: base64 and hex runs,
 * and bytes smuggled in variation selectors. Only what decodes to readable text counts:
 * hashes, ids and images decode to bytes and are left alone.
 */

export interface Payload {
  encoding: 'base64' | 'hex' | 'variation selectors';
  /** The encoded run as it appears in the text (cut to 80 characters). */
  encoded: string;
  decoded: string;
}

const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX_RUN = /(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){12,}(?![0-9A-Fa-f])/g;
const MAX_RUN = 65536;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Readable text: valid UTF-8, mostly printable, with at least one space between words. */
function readable(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  if (text.length < 8 || !/[\p{L}]{2,}[\s]+[\p{L}]{2,}/u.test(text)) return null;
  let printable = 0;
  for (const char of text) if (/[\p{L}\p{N}\p{P}\p{S}\s]/u.test(char)) printable++;
  return printable / [...text].length >= 0.95 ? text : null;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Base64 and hex runs of `text` that decode to readable text, in order. */
export function encodedPayloads(text: string): Payload[] {
  const found: Payload[] = [];
  // Without lookbehind, this scans fast; most text has no 20-character run at all.
  if (text.length < 20 || !/[A-Za-z0-9+/_-]{20}/.test(text)) return found;
  for (const match of text.matchAll(BASE64_RUN)) {
    const run = match[0];
    // A word, a path or an identifier is not base64: real payloads mix cases and digits.
    if (run.length > MAX_RUN || !/[A-Z]/.test(run) || !/[a-z]/.test(run)) continue;
    if (/^[0-9A-Fa-f]+$/.test(run)) continue;
    const decoded = readable(Buffer.from(run, 'base64'));
    if (decoded !== null) found.push({ encoding: 'base64', encoded: clip(run), decoded });
  }
  for (const match of text.matchAll(HEX_RUN)) {
    const run = match[0];
    if (run.length > MAX_RUN) continue;
    const decoded = readable(Buffer.from(run, 'hex'));
    if (decoded !== null) found.push({ encoding: 'hex', encoded: clip(run), decoded });
  }
  return found;
}

/**
 * Bytes carried by a run of variation selectors (VS1–VS16 are 0–15, VS17–VS256 are
 * 16–255), a way to hide text after an emoji; null unless they decode to readable text.
 */
export function variationSelectorPayload(codePoints: readonly number[]): string | null {
  if (codePoints.length < 4) return null;
  const bytes = codePoints.map((code) =>
    code >= 0xfe00 && code <= 0xfe0f ? code - 0xfe00 : code - 0xe0100 + 16,
  );
  if (bytes.some((byte) => byte < 0 || byte > 255)) return null;
  return readable(Uint8Array.from(bytes));
}
