import { fieldWording, relaxedWording, tightenedWording } from './explain.js';
import { HINTS, type HintName } from './hints.js';
import type { Severity } from './severity.js';

/**
 * Every finding kind, declared once (docs/design.md §4): its base severity, where it sorts (the
 * order of this table), the headline that names it in a subject or a change heading, how
 * its before/after values are shown to a person, and what it is and calls for (the help
 * a code-scanning dashboard shows beside a SARIF result). compare-tool, diff-listings,
 * format-text and the alert view read it; a new kind is one entry here plus its checks.
 */
export interface KindEntry {
  /** A severity, or one per `field` (annotation_relaxed: per hint). */
  base: Severity | Readonly<Record<string, Severity>>;
  /**
   * How before/after show: `none` (the explanation says it all), `values` (content to
   * review: descriptions, schemas, titles), `text` (the offending server text, quoted with
   * invisible characters made visible, and any hidden text decoded).
   */
  values: 'none' | 'values' | 'text';
  headline: (finding: HeadlineInput) => string;
  /** One line: what a finding of this kind is (a SARIF rule's short description). */
  summary: string;
  /** Why it matters to a host and what to do about it (a SARIF rule's help). */
  help: string;
}

/** What a headline may use; server text in it (tool, field) is already cleaned by the caller. */
export interface HeadlineInput {
  tool: string;
  field: string | null;
  before: unknown;
  after: unknown;
  renamedFrom: string | null;
  /** For content findings: what the record says was found. */
  content: ContentSummary | null;
}

/** The parts of a content finding's record a headline uses. */
export interface ContentSummary {
  /** Decoded or off-screen text, made visible. */
  hidden: string | null;
  families: string[];
  /** The other tool a shadowing text directs. */
  target: string | null;
  location: 'value' | 'key';
}

function hintOf(field: string | null): HintName | null {
  return HINTS.find((hint) => hint === field) ?? null;
}

/** "description", "the property name inputSchema.properties.x". */
function where(input: HeadlineInput): string {
  const field = input.field ?? 'text';
  if (input.content?.location === 'key') return `property name ${field}`;
  return field;
}

const SHORT_QUOTE = 60;

function shortQuote(text: string): string {
  return JSON.stringify(text.length > SHORT_QUOTE ? `${text.slice(0, SHORT_QUOTE - 1)}…` : text);
}

/** `prompt:greet` → `prompt greet` (surfaces.ts names items so); a tool name as it is. */
function subjectText(subject: string): string {
  const colon = subject.indexOf(':');
  return colon === -1
    ? subject
    : `${subject.slice(0, colon).replace('-', ' ')} ${subject.slice(colon + 1)}`;
}

function changedField(input: HeadlineInput): string {
  if (input.field === null) return `${input.tool} changed`;
  return fieldWording(input.tool, input.field, input.before ?? undefined, input.after ?? undefined)
    .summary;
}

export const FINDING_CATALOGUE = {
  annotation_relaxed: {
    base: {
      readOnlyHint: 'critical',
      destructiveHint: 'high',
      idempotentHint: 'high',
      openWorldHint: 'medium',
    },
    values: 'none',
    headline: (f) => {
      const hint = hintOf(f.field);
      return hint === null ? `${f.tool} relaxes a hint` : relaxedWording(f.tool, hint).summary;
    },
    summary: 'A tool annotation changed to a value that makes hosts gate the tool less',
    help: "Hosts decide from a tool's annotations which calls need a confirmation and which may be retried. A relaxation (readOnlyHint false→true: critical; destructiveHint true→false or idempotentHint false→true on a writing tool: high; openWorldHint true→false: medium) makes a host stop asking before the tool acts. Annotations are the server's self-description, not a control: a relaxation from an untrusted server is a rug-pull signal. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve). Restart long-lived host sessions once the change is accepted, since they keep the annotations they listed.",
  },
  hidden_characters: {
    base: 'high',
    values: 'text',
    headline: (f) =>
      f.content?.hidden
        ? `${f.tool}'s ${where(f)} hides text in invisible characters: ${shortQuote(f.content.hidden)}`
        : `${f.tool}'s ${where(f)} holds invisible characters`,
    summary: 'Server text holds invisible or reordering characters',
    help: 'Unicode tags, zero-width characters outside emoji, bidirectional controls, other format characters and private-use characters in a description, title or schema string reach the model but not the person reviewing the tool, and can carry instructions (critical when the hidden text is one). The finding shows the text made visible and any hidden text decoded. Do not approve the listing until the text is explained.',
  },
  instruction_injection: {
    base: 'high',
    values: 'text',
    headline: (f) =>
      `${f.tool}'s ${where(f)} addresses the model (${(f.content?.families ?? []).join(', ') || 'instructions'})`,
    summary:
      'Server text addresses the model: concealment, priority overrides, requests for secrets, exfiltration',
    help: 'A description, title or schema string that tells the model to hide what it does, to put this tool first, to read secrets or key files, or to send data to a URL or address (base64 and hex payloads are decoded) is an attack on every host that lists the tool, whatever its annotations say (critical when two such families combine, or with a relaxation). Do not approve the listing; find out who changed the server.',
  },
  tool_shadowing: {
    base: 'high',
    values: 'text',
    // A name's target is what it imitates ("a look-alike of send_email (server mail)").
    headline: (f) =>
      f.content?.target?.startsWith('a look-alike') === true
        ? `${f.tool}'s ${where(f)} is ${f.content.target}`
        : `${f.tool}'s ${where(f)} directs how ${f.content?.target ?? 'another tool'} is used`,
    summary: "A tool's text directs how another tool is used",
    help: 'A tool whose description tells the model how to use another tool (of another server, or not on this one) can steer calls it does not make itself: a classic cross-server attack. Review both servers before approving the listing.',
  },
  annotation_tightened: {
    base: 'low',
    values: 'none',
    headline: (f) => {
      const hint = hintOf(f.field);
      return hint === null ? `${f.tool} tightens a hint` : tightenedWording(f.tool, hint).summary;
    },
    summary: 'A tool annotation changed to a value that makes hosts gate the tool more',
    help: 'The reverse of a relaxation: hosts ask for confirmation more often, or retry less. Costly, not dangerous. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  annotation_declared: {
    base: 'info',
    values: 'none',
    headline: (f) => `${f.tool} re-declares ${f.field ?? 'a hint'} without changing its effect`,
    summary: 'A hint was declared or removed without changing its effective value',
    help: 'An absent hint was made explicit at its default, or the reverse. Hosts behave the same. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  annotation_invalid: {
    base: 'medium',
    values: 'none',
    headline: (f) => `${f.tool} declares an invalid ${f.field ?? 'hint'}`,
    summary: 'A hint has a value that is not a boolean',
    help: 'A hint such as "true" (a string), null or a number is not valid: hosts treat it as absent, that is, at its pessimistic default, while a reader of the listing may take it at its word. Ask the server to declare booleans.',
  },
  annotation_contradiction: {
    base: 'medium',
    values: 'none',
    headline: (f) => `${f.tool} claims read-only, yet its name or description says otherwise`,
    summary: 'A tool claims to be read-only, yet its name or description says it acts',
    help: 'A tool declared read-only whose name or description says it deletes, drops, wipes, sends, pays, transfers, executes… Hosts that trust the hint will call it without a confirmation. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  tool_added: {
    base: 'low',
    values: 'none',
    headline: (f) => `new tool ${f.tool}`,
    summary: 'A tool was added',
    help: 'A new tool is offered to hosts, with the annotations it declares. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  tool_removed: {
    base: 'low',
    values: 'none',
    headline: (f) => `${f.tool} was removed`,
    summary: 'A tool was removed',
    help: 'A tool hosts may call is gone; sessions that listed it still offer it. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  tool_renamed: {
    base: 'low',
    values: 'none',
    headline: (f) =>
      `${f.renamedFrom ?? (typeof f.before === 'string' ? f.before : '')} was renamed to ${f.tool}`,
    summary: 'A tool was renamed (same description and input schema under a new name)',
    help: "Its annotations are compared with the old tool's, so that a rename cannot launder a relaxation. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).",
  },
  description_changed: {
    base: 'low',
    values: 'values',
    headline: changedField,
    summary: "A tool's description changed",
    help: 'The description is what the model reads to decide when to call the tool. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  title_changed: {
    base: 'info',
    values: 'values',
    headline: changedField,
    summary: "A tool's title changed",
    help: 'The title (top-level or annotations.title) is what a host shows a person. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  input_schema_changed: {
    base: 'low',
    values: 'values',
    headline: changedField,
    summary: "A tool's input schema changed",
    help: 'What the tool accepts changed: calls built for the old schema may fail or mean something else. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  output_schema_changed: {
    base: 'low',
    values: 'values',
    headline: changedField,
    summary: "A tool's output schema changed",
    help: 'What the tool returns changed. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  meta_changed: {
    base: 'info',
    values: 'values',
    headline: changedField,
    summary: "A tool's _meta changed",
    help: "Vendor metadata outside the specification's fields. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).",
  },
  icons_changed: {
    base: 'info',
    values: 'values',
    headline: changedField,
    summary: "A tool's icons changed",
    help: 'What a host shows for the tool. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  other_changed: {
    base: 'info',
    values: 'values',
    headline: changedField,
    summary: 'Another key of a tool changed',
    help: 'A key the specification does not define, or one mcp-drift does not interpret. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  silent_change: {
    base: 'high',
    values: 'none',
    headline: () => 'the listing changed without a change notification',
    summary: 'The listing changed without a change notification reaching a held session',
    help: 'The server advertises change notifications, yet a fresh connection saw a listing that a long-lived session was not told about: every host session opened before keeps gating on the old annotations. Restart long-lived host sessions, and review the change.',
  },
  no_change_notification: {
    base: 'medium',
    values: 'none',
    headline: () => 'the listing changed and the server sends no change notifications',
    summary: 'The listing changed, and the server sends no change notifications',
    help: 'Hosts learn of the new listing only when they reconnect: sessions opened before keep the old annotations. Restart long-lived host sessions, and review the change.',
  },
  flip_flop: {
    base: 'high',
    values: 'none',
    headline: (f) => `${f.tool}'s hints keep changing`,
    summary: "A tool's effective posture changed three or more times within 24 hours",
    help: 'A tool whose hints keep changing is gated differently by every host session depending on when it listed. Find out why, before accepting any of its listings.',
  },
  unversioned_change: {
    base: 'low',
    values: 'none',
    headline: (f) =>
      `the listing changed while the server version stayed ${typeof f.after === 'string' ? shortQuote(f.after) : 'the same'}`,
    summary: 'The listing changed while serverInfo.version did not',
    help: "A server that changes what it offers under the same version makes a review by version meaningless: hosts and reviewers cannot tell the listings apart. Review the change, and ask the server's maintainers to version their releases.",
  },
  client_dependent_listing: {
    base: 'high',
    values: 'none',
    headline: () => 'the listing depends on which client asks',
    summary: 'Another client identity (clientInfo) is offered a different listing',
    help: 'A server that shows one listing to a scanner and another to a mainstream host makes every review of its listing meaningless. Find out why it tells clients apart; do not approve its listings until it stops.',
  },
  prompt_added: {
    base: 'low',
    values: 'none',
    headline: (f) => `new ${subjectText(f.tool)}`,
    summary: 'A prompt was added',
    help: "A new prompt is offered to hosts, which show it to users and fill it into the model's context. Its texts are content-checked like a tool's. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).",
  },
  prompt_removed: {
    base: 'low',
    values: 'none',
    headline: (f) => `${subjectText(f.tool)} was removed`,
    summary: 'A prompt was removed',
    help: 'A prompt hosts offer is gone; sessions that listed it still offer it. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  prompt_changed: {
    base: 'low',
    values: 'values',
    headline: (f) => `${subjectText(f.tool)}'s ${f.field ?? 'definition'} changed`,
    summary: "A prompt's description, arguments or another key changed",
    help: "What a prompt puts into the model's context, or what it asks the user for, changed (a new required argument: medium, since callers built for the old prompt fail). Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).",
  },
  resource_added: {
    base: 'low',
    values: 'none',
    headline: (f) => `new ${subjectText(f.tool)}`,
    summary: 'A resource was added',
    help: "A new resource is offered to hosts, which may read it into the model's context. Its name, title and description are content-checked like a tool's. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).",
  },
  resource_removed: {
    base: 'low',
    values: 'none',
    headline: (f) => `${subjectText(f.tool)} was removed`,
    summary: 'A resource was removed',
    help: 'A resource hosts offer is gone. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  resource_changed: {
    base: 'low',
    values: 'values',
    headline: (f) => `${subjectText(f.tool)}'s ${f.field ?? 'definition'} changed`,
    summary: "A resource's name, description, MIME type or another key changed",
    help: 'What hosts and the model are told about a resource changed. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  resource_template_added: {
    base: 'low',
    values: 'none',
    headline: (f) => `new ${subjectText(f.tool)}`,
    summary: 'A resource template was added',
    help: "A new family of resources is offered to hosts. Its texts are content-checked like a tool's. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).",
  },
  resource_template_removed: {
    base: 'low',
    values: 'none',
    headline: (f) => `${subjectText(f.tool)} was removed`,
    summary: 'A resource template was removed',
    help: 'A resource template hosts offer is gone. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  resource_template_changed: {
    base: 'low',
    values: 'values',
    headline: (f) => `${subjectText(f.tool)}'s ${f.field ?? 'definition'} changed`,
    summary: "A resource template's description, URI template or another key changed",
    help: 'What hosts and the model are told about a family of resources changed. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).',
  },
  instructions_changed: {
    base: 'medium',
    values: 'values',
    headline: () => 'the server rewrote its instructions',
    summary: "The server's instructions changed",
    help: "Hosts put a server's instructions (initialize result, or server/discover on 2026-07-28) into the model's context for the whole session: they steer every call, to this server and to others. Read the new text; its content findings, if any, are separate findings. Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).",
  },
} as const satisfies Readonly<Record<string, KindEntry>>;

export type FindingKind = keyof typeof FINDING_CATALOGUE;

/** Design §4, in catalogue order (the order findings of one tool sort in, among equals). */
export const FINDING_KINDS = Object.keys(FINDING_CATALOGUE) as FindingKind[];

/** Kinds whose findings are about text a server supplies (content checks, docs/design.md §4). */
export const CONTENT_KINDS: ReadonlySet<FindingKind> = new Set([
  'hidden_characters',
  'instruction_injection',
  'tool_shadowing',
]);

export function kindEntry(kind: string): KindEntry | undefined {
  return Object.hasOwn(FINDING_CATALOGUE, kind)
    ? (FINDING_CATALOGUE as Record<string, KindEntry>)[kind]
    : undefined;
}

/** The table's severity for a kind (and, for annotation_relaxed, its hint). */
export function baseSeverity(kind: FindingKind, field?: string): Severity {
  const base = (FINDING_CATALOGUE as Record<FindingKind, KindEntry>)[kind].base;
  if (typeof base === 'string') return base;
  const byField = field === undefined ? undefined : base[field];
  if (byField === undefined) throw new Error(`no base severity for ${kind} ${field ?? ''}`);
  return byField;
}
