import type { RawTool } from '../listings/canonical.js';

export const HINTS = [
  'readOnlyHint',
  'destructiveHint',
  'idempotentHint',
  'openWorldHint',
] as const;
export type HintName = (typeof HINTS)[number];

/** What an absent hint means (docs/design.md §3): the pessimistic reading. */
export const HINT_DEFAULTS: Readonly<Record<HintName, boolean>> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * What a tool declares for one hint: a boolean, `'absent'`, or `{ invalid: value }` for a
 * non-boolean (a string "true", null, a number...), which counts as absent.
 */
export type DeclaredHint = boolean | 'absent' | { invalid: unknown };

export interface HintReading {
  declared: DeclaredHint;
  effective: boolean;
}

export type Posture = Record<HintName, HintReading>;

/** The annotations object, or an empty one when the key is absent or not an object. */
export function annotationsOf(tool: RawTool): Record<string, unknown> {
  const value = tool['annotations'];
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return {};
}

export function readHint(annotations: Record<string, unknown>, hint: HintName): HintReading {
  if (!Object.hasOwn(annotations, hint)) {
    return { declared: 'absent', effective: HINT_DEFAULTS[hint] };
  }
  const value = annotations[hint];
  if (typeof value === 'boolean') return { declared: value, effective: value };
  return { declared: { invalid: value }, effective: HINT_DEFAULTS[hint] };
}

export function readPosture(tool: RawTool): Posture {
  const annotations = annotationsOf(tool);
  return {
    readOnlyHint: readHint(annotations, 'readOnlyHint'),
    destructiveHint: readHint(annotations, 'destructiveHint'),
    idempotentHint: readHint(annotations, 'idempotentHint'),
    openWorldHint: readHint(annotations, 'openWorldHint'),
  };
}

export function isInvalid(declared: DeclaredHint): declared is { invalid: unknown } {
  return typeof declared === 'object';
}

/** Whether a host reads this hint at all: destructive/idempotent only when not read-only. */
export function isMeaningful(posture: Posture, hint: HintName): boolean {
  if (hint === 'destructiveHint' || hint === 'idempotentHint') {
    return !posture.readOnlyHint.effective;
  }
  return true;
}

/**
 * The effective posture as a host sees it, as a short stable key: destructive/idempotent
 * are left out while the tool is read-only, since hosts ignore them then.
 */
export function postureKey(posture: Posture): string {
  const flag = (hint: HintName, letter: string) =>
    posture[hint].effective ? letter.toUpperCase() : letter;
  if (posture.readOnlyHint.effective) return `R--${flag('openWorldHint', 'o')}`;
  return `r${flag('destructiveHint', 'd')}${flag('idempotentHint', 'i')}${flag('openWorldHint', 'o')}`;
}

/** A declared hint as text for explanations: `true`, `absent`, `"true" (not a boolean)`. */
export function declaredText(declared: DeclaredHint): string {
  if (declared === 'absent') return 'absent';
  if (isInvalid(declared))
    return `${JSON.stringify(declared.invalid) ?? 'undefined'} (not a boolean)`;
  return String(declared);
}

/** The relaxing direction of each hint (docs/design.md §3): the value a host gates less on. */
export const RELAXED_VALUE: Readonly<Record<HintName, boolean>> = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
