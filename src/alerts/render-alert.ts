import type { ChangeRow, FindingRow } from '../db/schema.js';
import type { TrustLevel } from '../diff/index.js';
import {
  ALERT_LIMITS,
  buildAlertView,
  clean,
  NO_NOTIFICATION,
  shortHash,
  type AlertView,
  type ChangeView,
  type ToolView,
} from './alert-view.js';
import { markup, type SafeHtml } from './html-escape.js';
import {
  findingLinesText,
  findingsTableHtml,
  hintTableHtml,
  hintTableText,
  keyValueTableHtml,
  severityBadge,
} from './render-tables.js';

export interface AlertChange {
  change: ChangeRow;
  findings: FindingRow[];
}

export interface AlertMessageInput {
  server: { name: string; trust: TrustLevel };
  /** The alert the message is sent as (the digest's first alert): used in the `alerts ack` command. */
  alertId: number;
  /** One change, or the changes of a digest, oldest first. */
  changes: AlertChange[];
}

export interface AlertMessage {
  subject: string;
  text: string;
  html: string;
}

/**
 * The email for one change or a digest of one server's changes (docs/design.md §5, §9): what
 * changed, how dangerous it is, which host sessions may gate on stale values, and the
 * commands to act. Pure: the dispatcher does the sending.
 */
export function renderAlert(input: AlertMessageInput): AlertMessage {
  const view = buildAlertView(input);
  const subject = subjectOf(view);
  return { subject, text: renderText(view), html: renderHtml(view, subject).toString() };
}

/** One header line: `clean` has taken CR/LF and every control character out of server text. */
function subjectOf(view: AlertView): string {
  const prefix = `[mcp-drift] ${view.severity.toUpperCase()} ${view.server}: `;
  const suffix = view.notNotified ? NO_NOTIFICATION : '';
  const body =
    view.totalChanges === 1
      ? view.headline
      : `${view.totalChanges} changes; worst: ${view.headline}`;
  // The headline gives way, so that severity, server and the suffix always survive the cap.
  return prefix + clean(body, ALERT_LIMITS.subject - prefix.length - suffix.length) + suffix;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function opening(view: AlertView): string {
  return view.totalChanges === 1
    ? `${view.severity.toUpperCase()} change to the tools of MCP server ${view.server}`
    : `${view.totalChanges} changes to the tools of MCP server ${view.server}, the worst ${view.severity.toUpperCase()}`;
}

function detectedText(view: AlertView): string {
  return view.totalChanges === 1
    ? view.firstDetected
    : `between ${view.firstDetected} and ${view.lastDetected}`;
}

function omissionText(change: ChangeView): string | null {
  if (change.omittedFindings === 0) return null;
  const tools = change.omittedTools === 0 ? '' : ` on ${plural(change.omittedTools, 'more tool')}`;
  return `… and ${plural(change.omittedFindings, 'more finding')}${tools} (mcp-drift change show ${change.id})`;
}

function omittedChangesText(view: AlertView): string | null {
  if (view.commands.more === null) return null;
  return `… and ${plural(view.omittedChanges, 'more change')} in this digest (${view.commands.more})`;
}

const APPROVE_NOTE =
  'approves the listing seen last as the baseline: only once you have reviewed it';

/** A server's first listing has no listing before it (docs/change-chain.md). */
function listingText(change: ChangeView): string {
  return change.fromHash === null
    ? `first listing ${shortHash(change.toHash)}`
    : `listing ${shortHash(change.fromHash)} -> ${shortHash(change.toHash)}`;
}

function listingHtml(change: ChangeView): SafeHtml {
  return change.fromHash === null
    ? markup`first listing ${code(shortHash(change.toHash))}`
    : markup`listing ${code(shortHash(change.fromHash))} → ${code(shortHash(change.toHash))}`;
}

function changeText(change: ChangeView): string[] {
  const out = [
    '',
    `CHANGE ${change.id}: ${change.severity.toUpperCase()}, ${change.headline}`,
    `  detected ${change.detectedAt}, ${listingText(change)}`,
  ];
  if (change.listingFindings.length > 0) {
    out.push('', '  The listing as a whole', ...findingLinesText(change.listingFindings, '    '));
  }
  for (const tool of change.tools) {
    const renamed = tool.renamedFrom === null ? '' : `, renamed from ${tool.renamedFrom}`;
    out.push('', `  Tool ${tool.name} (${tool.worst}${renamed})`);
    out.push(...findingLinesText(tool.findings, '    '));
    if (tool.hints !== null) out.push('', ...hintTableText(tool.hints, '    '));
  }
  const omission = omissionText(change);
  if (omission !== null) out.push('', `  ${omission}`);
  out.push(
    '',
    '  Stale host sessions',
    `    Old values held by:  ${change.stale.heldBy}`,
    `    Change notification: ${change.stale.notification}`,
    `    TTL bound:           ${change.stale.ttl}`,
    '',
    `  Inspect: mcp-drift change show ${change.id}`,
  );
  return out;
}

function renderText(view: AlertView): string {
  const out = [
    `mcp-drift: ${opening(view)}`,
    '',
    `Server:    ${view.server}`,
    `Severity:  ${view.severity} (${plural(view.totalFindings, 'finding')}: ${view.counts || 'none'})`,
    `Detected:  ${detectedText(view)}`,
  ];
  if (view.worst !== null) out.push(`Worst:     ${view.worst}`);
  if (view.sinceApproval !== null) {
    out.push(
      `Since approval: ${view.sinceApproval.severity.toUpperCase()}: ${view.sinceApproval.text}; see ${view.sinceApproval.command}`,
    );
  }
  out.push('', 'TRUST POSTURE', `  ${view.trust.level}: ${view.trust.implication}`);
  for (const change of view.changes) out.push(...changeText(change));
  const more = omittedChangesText(view);
  if (more !== null) out.push('', more);
  out.push(
    '',
    'WHAT TO DO',
    `  ${view.control}`,
    '',
    ...view.commands.show.map((command) => `  Inspect:      ${command}`),
    ...(view.commands.more === null ? [] : [`  List all:     ${view.commands.more}`]),
    `  Acknowledge:  ${view.commands.ack}`,
    `  Approve:      ${view.commands.approve}`,
    `                (${APPROVE_NOTE})`,
  );
  return out.join('\n') + '\n';
}

const BODY_STYLE =
  'font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#1b1b1b;line-height:1.4';
const CODE_STYLE =
  'font-family:Menlo,Consolas,monospace;font-size:13px;background:#f4f4f4;padding:1px 4px';
const H3_STYLE = 'margin:20px 0 4px 0';
const H4_STYLE = 'margin:8px 0 4px 0';

function code(command: string): SafeHtml {
  return markup`<code style="${CODE_STYLE}">${command}</code>`;
}

function toolHtml(tool: ToolView): SafeHtml {
  const renamed = tool.renamedFrom === null ? '' : markup`, renamed from ${code(tool.renamedFrom)}`;
  return markup`<h4 style="${H4_STYLE}">Tool ${code(tool.name)} (${severityBadge(tool.worst)}${renamed})</h4>
${findingsTableHtml(tool.findings)}${tool.hints === null ? '' : hintTableHtml(tool.hints)}`;
}

function changeHtml(change: ChangeView): SafeHtml {
  const omission = omissionText(change);
  const listing =
    change.listingFindings.length === 0
      ? ''
      : markup`<h4 style="${H4_STYLE}">The listing as a whole</h4>
${findingsTableHtml(change.listingFindings)}`;
  return markup`<h3 style="${H3_STYLE}">Change ${change.id}: ${severityBadge(change.severity)} ${change.headline}</h3>
<p style="margin:0 0 8px 0">Detected ${change.detectedAt}; ${listingHtml(change)}</p>
${listing}${change.tools.map(toolHtml)}${omission === null ? '' : markup`<p><em>${omission}</em></p>\n`}<h4 style="${H4_STYLE}">Stale host sessions</h4>
${keyValueTableHtml([
  ['Old values held by', change.stale.heldBy],
  ['Change notification', change.stale.notification],
  ['TTL bound', change.stale.ttl],
])}<p>Inspect: ${code(`mcp-drift change show ${change.id}`)}</p>
`;
}

function renderHtml(view: AlertView, subject: string): SafeHtml {
  const more = omittedChangesText(view);
  const summary: Array<readonly [string, string | SafeHtml]> = [
    ['Server', code(view.server)],
    [
      'Severity',
      markup`${severityBadge(view.severity)} (${plural(view.totalFindings, 'finding')}: ${view.counts || 'none'})`,
    ],
    ['Detected', detectedText(view)],
  ];
  if (view.worst !== null) summary.push(['Worst', view.worst]);
  if (view.sinceApproval !== null) {
    summary.push([
      'Since approval',
      markup`${severityBadge(view.sinceApproval.severity)} ${view.sinceApproval.text}; see ${code(view.sinceApproval.command)}`,
    ]);
  }
  const commands: Array<readonly [string, string | SafeHtml]> = [
    ...view.commands.show.map((command) => ['Inspect', code(command)] as const),
    ...(view.commands.more === null ? [] : [['List all', code(view.commands.more)] as const]),
    ['Acknowledge', code(view.commands.ack)],
    ['Approve', markup`${code(view.commands.approve)}<br>${APPROVE_NOTE}`],
  ];
  return markup`<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<title>${subject}</title>
</head>
<body style="${BODY_STYLE}">
<h2 style="margin:0 0 8px 0">${opening(view)}</h2>
${keyValueTableHtml(summary)}<h3 style="${H3_STYLE}">Trust posture: ${view.trust.level}</h3>
<p style="margin:0">${view.trust.implication}</p>
${view.changes.map(changeHtml)}${more === null ? '' : markup`<p><em>${more}</em></p>\n`}<h3 style="${H3_STYLE}">What to do</h3>
<p style="margin:0 0 8px 0">${view.control}</p>
${keyValueTableHtml(commands)}</body>
</html>
`;
}
