import { canonicalize, type Extras, type RawItem, type RawTool } from '../listings/canonical.js';
import { ITEM_KEY, ITEM_NOUN } from '../listings/presentation.js';
import { ITEM_SURFACES, type ItemSurface } from '../vocabulary/surfaces.js';
import { baseSeverity, type FindingKind } from './catalogue.js';
import {
  contentDrafts,
  instructionsDrafts,
  type Draft,
  type ToolCheckOptions,
} from './compare-tool.js';
import { fieldPath } from './sarif.js';
import type { Finding } from './types.js';

/** The drafts about one item of a surface (`subject` names it), or about the instructions (null). */
export interface SurfaceDrafts {
  subject: string | null;
  drafts: Draft[];
}

const KINDS: Readonly<
  Record<ItemSurface, { added: FindingKind; removed: FindingKind; changed: FindingKind }>
> = {
  prompts: { added: 'prompt_added', removed: 'prompt_removed', changed: 'prompt_changed' },
  resources: { added: 'resource_added', removed: 'resource_removed', changed: 'resource_changed' },
  resourceTemplates: {
    added: 'resource_template_added',
    removed: 'resource_template_removed',
    changed: 'resource_template_changed',
  },
};

const SUBJECT_PREFIX: Readonly<Record<ItemSurface, string>> = {
  prompts: 'prompt:',
  resources: 'resource:',
  resourceTemplates: 'resource-template:',
};

/**
 * What a finding about an item says in its `tool` key: `prompt:NAME`, `resource:URI`,
 * `resource-template:URI_TEMPLATE` (docs/design.md §4). Tool names cannot be told apart
 * from these by shape alone, so readers go back to it through surfaceOfSubject.
 */
export function itemSubject(surface: ItemSurface, key: string): string {
  return `${SUBJECT_PREFIX[surface]}${key}`;
}

/**
 * The surface and key a finding subject names, or null for a tool name. A tool whose name
 * starts like a subject (`prompt:…`) is told apart by the findings' kinds, not here: this
 * only serves to locate a finding in a file.
 */
export function surfaceOfSubject(subject: string): { surface: ItemSurface; key: string } | null {
  for (const surface of ITEM_SURFACES) {
    const prefix = SUBJECT_PREFIX[surface];
    if (subject.startsWith(prefix)) return { surface, key: subject.slice(prefix.length) };
  }
  return null;
}

function itemsByKey(surface: ItemSurface, items: readonly RawItem[]): Map<string, RawItem> {
  return new Map(items.map((item) => [String(item[ITEM_KEY[surface]]), item]));
}

function contentOf(
  subject: string,
  before: RawItem | null,
  after: RawItem,
  options: ToolCheckOptions,
): Draft[] {
  // An item's texts are read as a tool's: every string at any depth, by the same rules.
  return contentDrafts(subject, before as RawTool | null, after as RawTool, options);
}

/** Names of the arguments a prompt requires. */
function requiredArguments(prompt: RawItem | null): Set<string> {
  const args = prompt?.['arguments'];
  if (!Array.isArray(args)) return new Set();
  return new Set(
    args.flatMap((arg: unknown) =>
      typeof arg === 'object' &&
      arg !== null &&
      (arg as RawItem)['required'] === true &&
      typeof (arg as RawItem)['name'] === 'string'
        ? [(arg as RawItem)['name'] as string]
        : [],
    ),
  );
}

function changedDrafts(
  surface: ItemSurface,
  key: string,
  before: RawItem,
  after: RawItem,
): Draft[] {
  const kind = KINDS[surface].changed;
  const noun = `${ITEM_NOUN[surface]} ${key}`;
  const drafts: Draft[] = [];
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const field of fields) {
    const old = before[field];
    const now = after[field];
    if (
      canonicalize(old ?? null) === canonicalize(now ?? null) &&
      (old === undefined) === (now === undefined)
    ) {
      continue;
    }
    const draft: Draft = {
      kind,
      base: baseSeverity(kind),
      field,
      ...(old === undefined ? {} : { before: old }),
      ...(now === undefined ? {} : { after: now }),
      wording: {
        summary: `${noun}'s ${field} changed`,
        effect: 'hosts and the model read the new value once they list again',
      },
    };
    if (surface === 'prompts' && field === 'arguments') {
      const wasRequired = requiredArguments(before);
      const added = [...requiredArguments(after)].filter((name) => !wasRequired.has(name));
      if (added.length > 0) {
        // A new required argument breaks every caller built for the old prompt.
        draft.base = 'medium';
        draft.basis = 'a new required argument';
        draft.wording = {
          summary: `${noun} now requires ${added.length === 1 ? 'the argument' : 'the arguments'} ${added.join(', ')}`,
          effect: 'hosts that fill the prompt as before now fail or ask the user for more',
        };
      }
    }
    drafts.push(draft);
  }
  return drafts;
}

/**
 * The findings of the surfaces other than tools (docs/design.md §4). A surface absent on
 * either side gives no added/removed/changed finding: absence is not emptiness, and a
 * listing stored before surfaces were recorded has them all absent. Texts that are new to
 * the `after` side are content-checked whatever the other side held.
 */
export function surfaceDrafts(
  before: Extras | null,
  after: Extras,
  options: ToolCheckOptions,
): SurfaceDrafts[] {
  const out: SurfaceDrafts[] = [];
  const instructions = instructionsDrafts(before?.instructions, after.instructions, options);
  if (
    before !== null &&
    before.instructions !== null &&
    after.instructions !== null &&
    before.instructions !== after.instructions
  ) {
    instructions.unshift({
      kind: 'instructions_changed',
      base: baseSeverity('instructions_changed'),
      field: 'instructions',
      before: before.instructions,
      after: after.instructions,
      wording: {
        summary: 'The server rewrote its instructions',
        effect:
          'hosts put the instructions into the model\u2019s context for the whole session: the new text steers every call',
      },
    });
  }
  if (instructions.length > 0) out.push({ subject: null, drafts: instructions });

  for (const surface of ITEM_SURFACES) {
    const now = after[surface];
    if (now === null) continue;
    const old = before?.[surface] ?? null;
    const oldByKey = old === null ? null : itemsByKey(surface, old);
    for (const [key, item] of itemsByKey(surface, now)) {
      const subject = itemSubject(surface, key);
      const previous = oldByKey?.get(key) ?? null;
      const drafts: Draft[] = [];
      if (oldByKey !== null && previous === null) {
        const kind = KINDS[surface].added;
        drafts.push({
          kind,
          base: baseSeverity(kind),
          wording: {
            summary: `${ITEM_NOUN[surface]} ${key} is new`,
            effect: 'hosts offer it once they list again',
          },
        });
      } else if (previous !== null && canonicalize(previous) !== canonicalize(item)) {
        drafts.push(...changedDrafts(surface, key, previous, item));
      }
      if (previous === null || drafts.length > 0) {
        drafts.push(...contentOf(subject, previous, item, options));
      }
      if (drafts.length > 0) out.push({ subject, drafts });
    }
    if (oldByKey === null) continue;
    const nowKeys = new Set(now.map((item) => String(item[ITEM_KEY[surface]])));
    for (const key of oldByKey.keys()) {
      if (nowKeys.has(key)) continue;
      const kind = KINDS[surface].removed;
      out.push({
        subject: itemSubject(surface, key),
        drafts: [
          {
            kind,
            base: baseSeverity(kind),
            wording: {
              summary: `${ITEM_NOUN[surface]} ${key} was removed`,
              effect: 'sessions that listed earlier still offer it',
            },
          },
        ],
      });
    }
  }
  return out;
}

/**
 * Where a surface finding's value is in a presentation document (`["prompts", 0,
 * "arguments", 0, "description"]`, `["instructions"]`); null for a tool's finding or a
 * change-level one; `[surface]` for an item `extras` does not hold. `extras` is the side that holds the item (the after side, or the
 * before side for a removal), in the document's own order.
 */
export function surfacePath(finding: Finding, extras: Extras): (string | number)[] | null {
  if (finding.tool === null) {
    return finding.field === 'instructions' && extras.instructions !== null
      ? ['instructions']
      : null;
  }
  const named = surfaceOfSubject(finding.tool);
  if (named === null) return null;
  const key = ITEM_KEY[named.surface];
  const index = extras[named.surface]?.findIndex((item) => item[key] === named.key) ?? -1;
  // An item this side does not hold: at its surface, as a tool not in a file is at its tools.
  return index === -1 ? [named.surface] : [named.surface, index, ...fieldPath(finding)];
}
