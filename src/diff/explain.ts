import { quote } from '../listings/validate.js';
import { declaredText, type DeclaredHint, type HintName, type Posture } from './hints.js';
import type { ContradictionEvidence } from './contradiction.js';

/**
 * The words of each finding: `summary` says what changed, `effect` what a host does about it.
 * A finding's explanation is the two joined into one sentence. Server-supplied text goes in
 * raw (JSON output keeps it exact); terminal and mail renderers sanitize it.
 */
export interface Wording {
  summary: string;
  effect: string;
}

export function relaxedWording(tool: string, hint: HintName): Wording {
  switch (hint) {
    case 'readOnlyHint':
      return {
        summary: `${tool} now claims read-only`,
        effect: 'a host with a confirmation policy will stop confirming calls to it',
      };
    case 'destructiveHint':
      return {
        summary: `${tool} no longer claims to be destructive`,
        effect: 'a host that confirms destructive calls will stop confirming calls to it',
      };
    case 'idempotentHint':
      return {
        summary: `${tool} now claims to be idempotent`,
        effect: 'a host may retry calls to it after a timeout, repeating their effect',
      };
    case 'openWorldHint':
      return {
        summary: `${tool} no longer claims to reach an open world`,
        effect: 'a host may stop treating its output as untrusted outside content',
      };
  }
}

export function tightenedWording(tool: string, hint: HintName): Wording {
  switch (hint) {
    case 'readOnlyHint':
      return {
        summary: `${tool} no longer claims read-only`,
        effect:
          'hosts that list again will confirm calls to it, while sessions that listed earlier still treat it as read-only',
      };
    case 'destructiveHint':
      return {
        summary: `${tool} now claims to be destructive`,
        effect:
          'hosts that list again will confirm calls to it, while sessions that listed earlier still do not',
      };
    case 'idempotentHint':
      return {
        summary: `${tool} no longer claims to be idempotent`,
        effect:
          'hosts that list again will stop retrying it, while sessions that listed earlier may still retry it',
      };
    case 'openWorldHint':
      return {
        summary: `${tool} now claims to reach an open world`,
        effect:
          'hosts that list again will treat its output as untrusted, while sessions that listed earlier do not',
      };
  }
}

export function invalidWording(tool: string, hint: HintName, value: unknown, fallback: boolean) {
  return {
    summary: `${tool} declares ${hint} as ${JSON.stringify(value) ?? 'undefined'}, which is not a boolean`,
    effect: `hosts treat it as absent, which means ${fallback}`,
  };
}

export function declaredWording(
  tool: string,
  hint: HintName,
  before: DeclaredHint,
  after: DeclaredHint,
  meaningful: boolean,
  effective: boolean,
): Wording {
  return {
    summary: `${tool}'s declared ${hint} changed from ${declaredText(before)} to ${declaredText(after)}`,
    effect: meaningful
      ? `its effective value stays ${effective}, so nothing changes for hosts`
      : `hosts ignore ${hint} on a read-only tool, so this changes nothing for them by itself`,
  };
}

export function postureText(posture: Posture): string {
  const openWorld = posture.openWorldHint.effective ? 'open-world' : 'closed-world';
  if (posture.readOnlyHint.effective) return `read-only, ${openWorld}`;
  const destructive = posture.destructiveHint.effective ? 'destructive' : 'non-destructive';
  const idempotent = posture.idempotentHint.effective ? 'idempotent' : 'not idempotent';
  return `writes, ${destructive}, ${idempotent}, ${openWorld}`;
}

export function contradictionWording(tool: string, evidence: ContradictionEvidence): Wording {
  const says = (where: string, verbs: string[]) =>
    verbs.length === 0 ? [] : [`its ${where} says ${verbs.map((verb) => `"${verb}"`).join(', ')}`];
  const claims = [...says('name', evidence.name), ...says('description', evidence.description)];
  return {
    summary: `${tool} claims read-only, yet ${claims.join(' and ')}`,
    effect: 'a host that trusts the hint will run it without confirmation',
  };
}

// A Map, not an object literal: field names come from servers ("constructor", "__proto__").
const FIELD_EFFECT: ReadonlyMap<string, string> = new Map([
  ['description', 'the model reads the new text when it chooses and calls the tool, so review it'],
  ['inputSchema', 'calls built for the old schema may be rejected or mean something else'],
  ['outputSchema', 'hosts that validate structured results check them against the new schema'],
  ['_meta', 'no host gates calls on it'],
  ['icons', 'hosts show the new icons; no host gates calls on them'],
]);

export function fieldWording(tool: string, field: string, before: unknown, after: unknown) {
  if (field === 'title' || field === 'annotations.title') {
    const text = (value: unknown) =>
      value === undefined
        ? 'absent'
        : typeof value === 'string'
          ? quote(value)
          : JSON.stringify(value);
    return {
      summary: `${tool}'s ${field} changed from ${text(before)} to ${text(after)}`,
      effect: 'hosts show the new title to users; no host gates calls on it',
    };
  }
  const label =
    field === 'inputSchema' ? 'input schema' : field === 'outputSchema' ? 'output schema' : field;
  return {
    summary: `${tool}'s ${label} ${before === undefined ? 'was added' : after === undefined ? 'was removed' : 'changed'}`,
    effect:
      FIELD_EFFECT.get(field) ??
      'mcp-drift does not interpret this key; review it if hosts you run read it',
  };
}
