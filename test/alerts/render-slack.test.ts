import { describe, expect, it } from 'vitest';
import { renderSlack, SLACK_LIMITS } from '../../src/alerts/render-slack.js';
import { renderWebhook } from '../../src/alerts/render-webhook.js';
import { escapeMrkdwn } from '../../src/alerts/slack-text.js';
import { visibleText } from '../../src/text/visible-text.js';
import { annotations, loadListing, toolNamed, withChange } from '../listings/support.js';
import { blockKitProblems } from '../support/block-kit.js';
import { storedChange } from './stored-change.js';

/** Every text the message carries, in one string. */
const textsOf = (message: ReturnType<typeof renderSlack>) =>
  [message.text, ...JSON.stringify(message.blocks).split('"text":"').slice(1)].join('\n');

describe('renderSlack', () => {
  it('is valid Block Kit with a header, a section per tool, the stale window and the commands', () => {
    const { before, after } = withChange('memory', 'delete_entities', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
    });
    const change = storedChange(before, after, {
      id: 12,
      delivery: { listChangedAdvertised: true, notificationSeen: false },
    });
    const message = renderSlack({
      server: { name: 'memory', trust: 'untrusted' },
      alertId: 7,
      changes: [change],
    });
    expect(blockKitProblems(message)).toEqual([]);
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: {
        type: 'plain_text',
        text: 'CRITICAL memory: delete_entities now claims read-only (no change notification)',
      },
    });
    const sections = message.blocks.flatMap((block) =>
      block.type === 'section' ? [block.text.text] : [],
    );
    expect(sections.filter((text) => text.startsWith('*Tool '))).toEqual([
      expect.stringContaining('*readOnlyHint: false → true*'),
    ]);
    expect(sections).toContainEqual(
      expect.stringMatching(
        /^\*Stale host sessions\*\nOld values held by: host sessions that listed between 2026-11-30T10:00:00.000Z and 2026-11-30T11:55:00.000Z/,
      ),
    );
    const last = sections.at(-1)!;
    expect(last).toContain('`mcp-drift change show 12`');
    expect(last).toContain('`mcp-drift alerts ack 7`');
    expect(last).toMatch(/`mcp-drift baseline approve memory --listing [0-9a-f]{64}`/);
    expect(message.text).toBe(
      '[mcp-drift] CRITICAL memory: delete_entities now claims read-only (no change notification)',
    );
  });

  it('escapes server text for mrkdwn and shows invisible characters', () => {
    const before = loadListing('filesystem');
    const after = structuredClone(before);
    toolNamed(after, 'read_file')['description'] =
      'Reads <!channel> & <https://evil.example|click here>\u200b\u202eevil\u202c \u{E0049}\u{E0067}nore';
    const renamed = toolNamed(after, 'write_file');
    renamed.name = 'write_<b>&file';
    annotations(renamed)['readOnlyHint'] = true;
    const message = renderSlack({
      server: { name: 'fs', trust: 'untrusted' },
      alertId: 5,
      changes: [storedChange(before, after, { id: 5, server: 'fs' })],
    });
    expect(blockKitProblems(message)).toEqual([]);
    const texts = textsOf(message);
    expect(texts).toContain(
      'Reads &lt;!channel&gt; &amp; &lt;https://evil.example|click here&gt;⟦U+200B⟧⟦U+202E⟧evil⟦U+202C⟧ ⟦U+E0049⟧⟦U+E0067⟧nore',
    );
    expect(texts).toContain('write_&lt;b&gt;&amp;file');
    expect(texts).not.toMatch(/[\u200b\u202e\u202c]|[\u{E0000}-\u{E007F}]/u);
    // The header is plain_text: shown as written, invisible characters made visible.
    expect(message.blocks[0]).toMatchObject({ text: { type: 'plain_text' } });
  });

  it('stays within Block Kit limits for a digest of 25 changes of 300 findings each', () => {
    const base = loadListing('playwright');
    const writers = base.filter((tool) => annotations(tool)['readOnlyHint'] === false);
    const changes = Array.from({ length: 25 }, (_, index) => {
      const after = structuredClone(base);
      for (let round = 0; after.length < base.length + 300; round++) {
        for (const tool of writers) {
          if (after.length === base.length + 300) break;
          after.push({
            ...structuredClone(tool),
            name: `${tool.name}_${index}_${round}_${'x'.repeat(200)}`,
          });
        }
      }
      return storedChange(base, after, { id: index + 1, server: 'playwright' });
    });
    const message = renderSlack({
      server: { name: 'playwright', trust: 'untrusted' },
      alertId: 1,
      changes,
    });
    expect(blockKitProblems(message)).toEqual([]);
    expect(message.blocks).toHaveLength(SLACK_LIMITS.blocks);
    // What did not fit is named, with the command that shows it all; the commands close it.
    expect(textsOf(message)).toMatch(
      /… \d+ more parts of this alert not shown here: `mcp-drift changes --server playwright`/,
    );
    const last = message.blocks.at(-1)!;
    expect(last.type === 'section' && last.text.text).toMatch(/^\*What to do\*/);
  });
});

describe('renderWebhook', () => {
  it('carries every finding with its interpretation record, the server and the commands', () => {
    const { before, after } = withChange('memory', 'delete_entities', (tool) => {
      annotations(tool)['readOnlyHint'] = true;
    });
    const change = storedChange(before, after, { id: 12 });
    const document = renderWebhook({
      server: { name: 'memory', trust: 'trusted' },
      alertId: 7,
      changes: [change],
      delivery: 'key-1',
    }) as { changes: { findings: unknown[] }[] };
    expect(document).toMatchObject({
      type: 'mcp-drift.alert',
      version: 1,
      delivery: 'key-1',
      alert: 7,
      server: { name: 'memory', trust: 'trusted' },
      severity: 'critical',
      commands: { show: ['mcp-drift change show 12'], ack: 'mcp-drift alerts ack 7' },
    });
    expect(document.changes[0]!.findings).toEqual(
      change.findings.map((row) => expect.objectContaining({ kind: row.kind, record: row.record })),
    );
  });
});

describe('text for Slack', () => {
  it('escapes only &, < and >, and shows invisible characters as code points', () => {
    expect(escapeMrkdwn('a & b < c > d *e* `f`')).toBe('a &amp; b &lt; c &gt; d *e* `f`');
    expect(visibleText('pay\u200dme\ufeff')).toBe('pay⟦U+200D⟧me⟦U+FEFF⟧');
    // A zero-width joiner inside an emoji sequence is how the emoji is written.
    expect(visibleText('👩\u200d💻')).toBe('👩\u200d💻');
    expect(visibleText('\u{F0000}')).toBe('⟦U+F0000⟧');
  });
});
