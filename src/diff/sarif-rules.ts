import type { Severity } from './severity.js';
import type { FindingKind } from './types.js';

/*
 * What a SARIF rule says about each finding kind: its base severity (the highest a kind
 * starts from, before escalations) and the help a code-scanning dashboard shows beside
 * an alert. One entry per kind: the type makes a new kind fail to compile until it has one.
 */

export interface RuleText {
  base: Severity;
  /** One line: what the finding is. */
  summary: string;
  /** Why it matters to a host, and what to do. */
  help: string;
}

const REVIEW =
  'Review the change; when it is intended, accept it (mcp-drift lock --update, or baseline approve).';

export const RULE_TEXT: Record<FindingKind, RuleText> = {
  annotation_relaxed: {
    base: 'critical',
    summary: 'A tool annotation changed to a value that makes hosts gate the tool less',
    help: `Hosts decide from a tool's annotations which calls need a confirmation and which may be retried. A relaxation (readOnlyHint false→true: critical; destructiveHint true→false or idempotentHint false→true on a writing tool: high; openWorldHint true→false: medium) makes a host stop asking before the tool acts. Annotations are the server's self-description, not a control: a relaxation from an untrusted server is a rug-pull signal. ${REVIEW} Restart long-lived host sessions once the change is accepted, since they keep the annotations they listed.`,
  },
  annotation_tightened: {
    base: 'low',
    summary: 'A tool annotation changed to a value that makes hosts gate the tool more',
    help: `The reverse of a relaxation: hosts ask for confirmation more often, or retry less. Costly, not dangerous. ${REVIEW}`,
  },
  annotation_declared: {
    base: 'info',
    summary: 'A hint was declared or removed without changing its effective value',
    help: `An absent hint was made explicit at its default, or the reverse. Hosts behave the same. ${REVIEW}`,
  },
  annotation_invalid: {
    base: 'medium',
    summary: 'A hint has a value that is not a boolean',
    help: 'A hint such as "true" (a string), null or a number is not valid: hosts treat it as absent, that is, at its pessimistic default, while a reader of the listing may take it at its word. Ask the server to declare booleans.',
  },
  annotation_contradiction: {
    base: 'medium',
    summary: 'A tool claims to be read-only, yet its name or description says it acts',
    help: `A tool declared read-only whose name or description says it deletes, drops, wipes, sends, pays, transfers, executes… Hosts that trust the hint will call it without a confirmation. ${REVIEW}`,
  },
  tool_added: {
    base: 'low',
    summary: 'A tool was added',
    help: `A new tool is offered to hosts, with the annotations it declares. ${REVIEW}`,
  },
  tool_removed: {
    base: 'low',
    summary: 'A tool was removed',
    help: `A tool hosts may call is gone; sessions that listed it still offer it. ${REVIEW}`,
  },
  tool_renamed: {
    base: 'low',
    summary: 'A tool was renamed (same description and input schema under a new name)',
    help: `Its annotations are compared with the old tool's, so that a rename cannot launder a relaxation. ${REVIEW}`,
  },
  description_changed: {
    base: 'low',
    summary: "A tool's description changed",
    help: `The description is what the model reads to decide when to call the tool. ${REVIEW}`,
  },
  title_changed: {
    base: 'info',
    summary: "A tool's title changed",
    help: `The title (top-level or annotations.title) is what a host shows a person. ${REVIEW}`,
  },
  input_schema_changed: {
    base: 'low',
    summary: "A tool's input schema changed",
    help: `What the tool accepts changed: calls built for the old schema may fail or mean something else. ${REVIEW}`,
  },
  output_schema_changed: {
    base: 'low',
    summary: "A tool's output schema changed",
    help: `What the tool returns changed. ${REVIEW}`,
  },
  meta_changed: {
    base: 'info',
    summary: "A tool's _meta changed",
    help: `Vendor metadata outside the specification's fields. ${REVIEW}`,
  },
  icons_changed: {
    base: 'info',
    summary: "A tool's icons changed",
    help: `What a host shows for the tool. ${REVIEW}`,
  },
  other_changed: {
    base: 'info',
    summary: 'Another key of a tool changed',
    help: `A key the specification does not define, or one mcp-drift does not interpret. ${REVIEW}`,
  },
  silent_change: {
    base: 'high',
    summary: 'The listing changed without a change notification reaching a held session',
    help: 'The server advertises change notifications, yet a fresh connection saw a listing that a long-lived session was not told about: every host session opened before keeps gating on the old annotations. Restart long-lived host sessions, and review the change.',
  },
  no_change_notification: {
    base: 'medium',
    summary: 'The listing changed, and the server sends no change notifications',
    help: 'Hosts learn of the new listing only when they reconnect: sessions opened before keep the old annotations. Restart long-lived host sessions, and review the change.',
  },
  flip_flop: {
    base: 'high',
    summary: "A tool's effective posture changed three or more times within 24 hours",
    help: 'A tool whose hints keep changing is gated differently by every host session depending on when it listed. Find out why, before accepting any of its listings.',
  },
};
