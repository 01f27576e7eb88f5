import { declaredText, HINTS } from '../diff/hints.js';
import type { HintRecord } from '../diff/index.js';
import {
  buildAlertView,
  shortHash,
  type ChangeView,
  type FindingView,
  type ToolView,
} from './alert-view.js';
import type { AlertMessageInput } from './render-alert.js';
import { escapeMrkdwn, fitSlack, plainText } from './slack-text.js';

/** Block Kit's documented limits for what this message uses. */
export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  contextElements: 10,
  contextText: 3000,
  /** The top-level `text`, the notification's fallback; Slack truncates past 40,000. */
  fallbackText: 3000,
} as const;

type Text = { type: 'mrkdwn'; text: string } | { type: 'plain_text'; text: string };
export type SlackBlock =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text: Text }
  | { type: 'context'; elements: Text[] }
  | { type: 'divider' };

export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

const mrkdwn = (text: string): Text => ({
  type: 'mrkdwn',
  text: fitSlack(text, SLACK_LIMITS.sectionText),
});
const section = (text: string): SlackBlock => ({ type: 'section', text: mrkdwn(text) });
const context = (text: string): SlackBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: fitSlack(text, SLACK_LIMITS.contextText) }],
});

/** Every string below is escaped where it is put into mrkdwn: `e` for short. */
const e = escapeMrkdwn;

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** "false", "true (absent)", or "true (declared \"yes\", not a boolean)". */
function hintValue(declared: HintRecord['declaredBefore'], effective: boolean | null): string {
  if (effective === null) return '—';
  if (declared === null || declared === effective) return String(effective);
  return `${effective} (${declared === 'absent' ? 'absent' : `declared ${declaredText(declared)}`})`;
}

function hintLines(hints: NonNullable<ToolView['hints']>): string[] {
  return HINTS.flatMap((hint) => {
    const record = hints[hint] as HintRecord | undefined;
    if (record === undefined) return [];
    const moved =
      record.effectiveBefore !== null &&
      record.effectiveAfter !== null &&
      record.effectiveBefore !== record.effectiveAfter;
    const line = `${hint}: ${e(hintValue(record.declaredBefore, record.effectiveBefore))} → ${e(hintValue(record.declaredAfter, record.effectiveAfter))}`;
    return [moved ? `*${line}*` : line];
  });
}

function findingLines(findings: readonly FindingView[]): string[] {
  return findings.flatMap((finding) => [
    `• *${finding.severity.toUpperCase()}* ${e(finding.text)}`,
    ...(finding.values ?? []).map(({ label, value }) => `   ${label}: ${e(value)}`),
  ]);
}

function toolSection(tool: ToolView): SlackBlock {
  const renamed = tool.renamedFrom === null ? '' : `, renamed from ${e(tool.renamedFrom)}`;
  return section(
    [
      `*Tool ${e(tool.name)}* (${tool.worst}${renamed})`,
      ...findingLines(tool.findings),
      ...(tool.hints === null ? [] : hintLines(tool.hints)),
    ].join('\n'),
  );
}

function staleSection(change: ChangeView): SlackBlock {
  return section(
    [
      '*Stale host sessions*',
      `Old values held by: ${e(change.stale.heldBy)}`,
      `Change notification: ${e(change.stale.notification)}`,
      `TTL bound: ${e(change.stale.ttl)}`,
    ].join('\n'),
  );
}

/**
 * Adds blocks while the message has room, keeping `reserved` blocks for what must close
 * it; what does not fit is counted and named in one context block, with the command that
 * shows it all.
 */
class BlockBudget {
  readonly blocks: SlackBlock[] = [];
  private skipped = 0;

  constructor(private readonly reserved: number) {}

  add(block: SlackBlock): void {
    // One more slot stays free for the note about what was left out.
    if (this.blocks.length < SLACK_LIMITS.blocks - this.reserved - 1) this.blocks.push(block);
    else this.skipped++;
  }

  closeWith(tail: SlackBlock[], more: string): SlackBlock[] {
    if (this.skipped > 0) {
      this.blocks.push(
        context(`… ${plural(this.skipped, 'more part')} of this alert not shown here: ${more}`),
      );
    }
    return [...this.blocks, ...tail];
  }
}

/**
 * The Slack message for one change or a digest (Block Kit, for an incoming webhook): a
 * header with severity and server, a summary, per change a section for each tool with its
 * hints before → after, the stale-session window, and the commands to inspect, acknowledge
 * and approve. Built from the same AlertView as the email, so both say the same; server
 * text is escaped for mrkdwn and its invisible characters shown. Pure.
 */
export function renderSlack(input: AlertMessageInput): SlackMessage {
  const view = buildAlertView(input);
  const title = `${view.severity.toUpperCase()} ${view.server}: ${
    view.totalChanges === 1
      ? view.headline
      : `${view.totalChanges} changes; worst: ${view.headline}`
  }${view.notNotified ? ' (no change notification)' : ''}`;

  const summary = [
    `*Server* ${e(view.server)}  ·  *Severity* ${view.severity.toUpperCase()} (${plural(view.totalFindings, 'finding')}: ${view.counts || 'none'})`,
    `*Detected* ${view.totalChanges === 1 ? view.firstDetected : `between ${view.firstDetected} and ${view.lastDetected}`}`,
    `*Trust* ${view.trust.level}: ${e(view.trust.implication)}`,
    ...(view.worst === null ? [] : [`*Worst* ${e(view.worst)}`]),
    ...(view.sinceApproval === null
      ? []
      : [
          `*Since approval* ${view.sinceApproval.severity.toUpperCase()}: ${e(view.sinceApproval.text)}; \`${e(view.sinceApproval.command)}\``,
        ]),
  ].join('\n');

  const commands = [
    ...view.commands.show.map((command) => `Inspect: \`${e(command)}\``),
    ...(view.commands.more === null ? [] : [`List all: \`${e(view.commands.more)}\``]),
    `Acknowledge: \`${e(view.commands.ack)}\``,
    `Approve: \`${e(view.commands.approve)}\` (only once you have reviewed the listing)`,
  ];
  const tail: SlackBlock[] = [
    { type: 'divider' },
    section([`*What to do*`, e(view.control), '', ...commands].join('\n')),
  ];

  const budget = new BlockBudget(tail.length);
  budget.add({
    type: 'header',
    text: { type: 'plain_text', text: fitSlack(plainText(title), SLACK_LIMITS.headerText) },
  });
  budget.add(section(summary));
  for (const change of view.changes) {
    budget.add({ type: 'divider' });
    budget.add(
      section(
        [
          `*Change ${change.id}: ${change.severity.toUpperCase()}* ${e(change.headline)}`,
          change.fromHash === null
            ? `Detected ${change.detectedAt}; first listing ${shortHash(change.toHash)}`
            : `Detected ${change.detectedAt}; listing ${shortHash(change.fromHash)} → ${shortHash(change.toHash)}`,
          ...(change.listingFindings.length === 0
            ? []
            : ['', '*The listing as a whole*', ...findingLines(change.listingFindings)]),
        ].join('\n'),
      ),
    );
    for (const tool of change.tools) budget.add(toolSection(tool));
    if (change.omittedFindings > 0) {
      budget.add(
        context(
          `… and ${plural(change.omittedFindings, 'more finding')}${change.omittedTools === 0 ? '' : ` on ${plural(change.omittedTools, 'more tool')}`}: \`mcp-drift change show ${change.id}\``,
        ),
      );
    }
    budget.add(staleSection(change));
  }
  if (view.omittedChanges > 0 && view.commands.more !== null) {
    budget.add(
      context(
        `… and ${plural(view.omittedChanges, 'more change')} in this digest: \`${e(view.commands.more)}\``,
      ),
    );
  }
  const more = view.commands.more ?? view.commands.show[0] ?? view.commands.ack;
  return {
    text: fitSlack(e(`[mcp-drift] ${title}`), SLACK_LIMITS.fallbackText),
    blocks: budget.closeWith(tail, `\`${e(more)}\``),
  };
}

/** What `alerts test` posts: proof that the webhook URL works. */
export function renderSlackTest(): SlackMessage {
  const text = 'mcp-drift can post here. Alerts about MCP servers will arrive like this.';
  return {
    text,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'mcp-drift test message' } },
      section(text),
    ],
  };
}
