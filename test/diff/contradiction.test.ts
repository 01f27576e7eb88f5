import { describe, expect, it } from 'vitest';
import { actionVerbs, contradictionEvidence } from '../../src/diff/index.js';
import { FIXTURES, loadListing } from '../listings/support.js';
import { readPosture } from '../../src/diff/index.js';

describe('actionVerbs', () => {
  it('finds verbs in snake_case, camelCase, kebab-case and PascalCase names', () => {
    expect(actionVerbs('purge_tenant')).toEqual(['purge']);
    expect(actionVerbs('dropTable')).toEqual(['drop']);
    expect(actionVerbs('wipe-cache')).toEqual(['wipe']);
    expect(actionVerbs('KillProcess')).toEqual(['kill']);
    expect(actionVerbs('HTTPSendRequest')).toEqual(['send']);
    expect(actionVerbs('rm_rf')).toEqual(['remove']);
    expect(actionVerbs('exec_sql')).toEqual(['execute']);
  });

  it('finds the listed verbs in their active forms', () => {
    const text =
      'Deletes rows, drops tables, wipes caches, purges queues, removes keys, overwrites files, sends mail, ' +
      'pays invoices, transfers funds, executes code, kills jobs, destroys VMs, truncates logs, erases disks, ' +
      'revokes tokens, unlinks paths and writes files.';
    expect(actionVerbs(text)).toEqual([
      'delete',
      'drop',
      'wipe',
      'purge',
      'remove',
      'overwrite',
      'send',
      'pay',
      'transfer',
      'execute',
      'kill',
      'destroy',
      'truncate',
      'erase',
      'revoke',
      'unlink',
      'write',
    ]);
    expect(actionVerbs('Deleting old snapshots')).toEqual(['delete']);
  });

  it('skips negated verbs', () => {
    expect(actionVerbs('This tool does not delete anything.')).toEqual([]);
    expect(actionVerbs('Never sends data anywhere')).toEqual([]);
    expect(actionVerbs('Lists keys without removing them')).toEqual([]);
    expect(actionVerbs('It doesn’t modify or delete files')).toEqual([]);
    expect(actionVerbs('Deletes nothing')).toEqual([]);
    // the negation does not cross a sentence
    expect(actionVerbs('Nothing is cached. Not idempotent: it deletes the row.')).toEqual([
      'delete',
    ]);
  });

  it('does not match other words that share letters', () => {
    expect(actionVerbs('Returns the payload of a dropdown with deleted and sent items')).toEqual(
      [],
    );
    expect(
      actionVerbs('Shows the execution plan and removal history of transferred files'),
    ).toEqual([]);
  });
});

describe('contradictionEvidence', () => {
  it('says where each verb was found', () => {
    expect(
      contradictionEvidence({ name: 'purge_tenant', description: 'Sends a receipt.' }),
    ).toEqual({ name: ['purge'], description: ['send'] });
    expect(
      contradictionEvidence({ name: 'get_status', description: 'Returns status.' }),
    ).toBeNull();
  });

  it('flags no read-only tool of the real fixtures', () => {
    for (const fixture of FIXTURES) {
      for (const tool of loadListing(fixture)) {
        if (!readPosture(tool).readOnlyHint.effective) continue;
        expect(contradictionEvidence(tool), `${fixture} ${tool.name}`).toBeNull();
      }
    }
  });
});
