import { describe, expect, it } from 'vitest';
import { diffListings } from '../../src/diff/index.js';
import { actionOf, plausibility } from '../../src/diff/first-declaration.js';
import type { RawTool } from '../../src/listings/canonical.js';
import { only } from './support.js';

/** A tool with a name and a description; annotations are added by each case. */
function tool(name: string, description: string, annotations?: object): RawTool {
  return {
    name,
    description,
    inputSchema: { type: 'object' },
    ...(annotations === undefined ? {} : { annotations }),
  };
}

/** Other tools without hints, so that one declaration is not a vendor adopting annotations. */
const OTHERS = ['alpha', 'beta', 'gamma'].map((name) => tool(name, `The ${name} tool.`));

function firstDeclaration(name: string, description: string, annotations: object) {
  const before = [tool(name, description), ...OTHERS];
  const after = [tool(name, description, annotations), ...OTHERS];
  return diffListings(before, after);
}

describe('the action of a tool is the verb its name leads with', () => {
  it.each([
    ['get_commit', ['get']],
    ['getCommit', ['get']],
    ['get-commit', ['get']],
    ['list_deployments', ['list']],
    ['searchIssues', ['search']],
    ['describe-pod', ['describe']],
    ['count_rows', ['count']],
    ['download_file', ['download']],
    ['browser_close', ['close']],
    ['mobile_list_apps', ['list']],
    ['git_commit', ['commit']],
    ['create_or_update_file', ['create', 'update']],
  ])('%s acts by %j', (name, words) => {
    expect(actionOf(tool(name, '')).words).toEqual(words);
  });

  it('a name without an action word leaves the description’s leading verb', () => {
    expect(actionOf(tool('sentry_issues', 'Lists the issues of a project.'))).toEqual({
      words: ['lists'],
      from: 'description',
    });
  });

  it.each([
    ['get_commit', 'Get details for a commit from a GitHub repository'],
    ['getCommit', 'Get details for a commit'],
    ['get-commit', 'Get details for a commit'],
    ['list_pushes', 'List the pushes to a branch'],
  ])('%s declared read-only is supported: its object is no write', (name, description) => {
    expect(plausibility('readOnlyHint', tool(name, description)).verdict).toBe('consistent');
    const relaxed = only(
      firstDeclaration(name, description, { readOnlyHint: true }),
      'annotation_relaxed',
      'readOnlyHint',
    );
    expect(relaxed.severity).toBe('low');
  });

  it('a tool that returns a URL, declared closed-world, is not contradicted by "url"', () => {
    const share = tool('get_share_url', 'Returns the URL of the shared dashboard.');
    expect(plausibility('openWorldHint', share).verdict).toBe('unsupported');
    const relaxed = only(
      firstDeclaration(share.name, share['description'] as string, { openWorldHint: false }),
      'annotation_relaxed',
      'openWorldHint',
    );
    expect(relaxed.severity).toBe('low');
  });

  it('a tool whose action fetches, declared closed-world, is contradicted', () => {
    const fetcher = tool('fetch_page', 'Fetches a web page.');
    expect(plausibility('openWorldHint', fetcher)).toEqual({
      verdict: 'contradicted',
      word: 'fetch',
    });
  });

  it.each([
    ['readOnlyHint', 'git_commit', 'Record changes to the repository', 'commit'],
    ['readOnlyHint', 'mobile_tap', 'Tap on the screen', 'tap'],
    ['destructiveHint', 'delete_branch', 'Delete a branch', 'delete'],
    ['idempotentHint', 'send_message', 'Send a message to a channel', 'send'],
  ] as const)('%s on %s is contradicted by its action', (hint, name, description, word) => {
    expect(plausibility(hint, tool(name, description))).toEqual({ verdict: 'contradicted', word });
  });

  it('a write verb later in the description no longer contradicts a read action', () => {
    const read = tool('get_file', 'Gets a file. Use write_file or push to change it.');
    expect(plausibility('readOnlyHint', read).verdict).toBe('consistent');
  });
});

describe('declared flips graded by the tool’s unchanged name', () => {
  function flip(name: string, description: string, hint: string, from: boolean, to: boolean) {
    const before = [tool(name, description, { [hint]: from }), ...OTHERS];
    const after = [tool(name, description, { [hint]: to }), ...OTHERS];
    return only(diffListings(before, after), 'annotation_relaxed', hint);
  }

  it('a read tool declared read-only after false is medium', () => {
    expect(flip('list_projects', 'List projects', 'readOnlyHint', false, true).severity).toBe(
      'medium',
    );
  });

  it('a read tool declared non-destructive after true is medium', () => {
    expect(flip('get_status', 'Get the status', 'destructiveHint', true, false).severity).toBe(
      'medium',
    );
  });

  it.each([
    ['mobile_tap', 'Tap on the screen at the given coordinates'],
    ['browser_click', 'Click an element on the page'],
    ['install_app', 'Install an app on the device'],
    ['create_issue', 'Create an issue'],
  ])('%s declared non-destructive after true stays high', (name, description) => {
    expect(flip(name, description, 'destructiveHint', true, false).severity).toBe('high');
  });

  it('a write tool declared read-only after false stays critical', () => {
    expect(flip('update_issue', 'Update an issue', 'readOnlyHint', false, true).severity).toBe(
      'critical',
    );
  });
});
