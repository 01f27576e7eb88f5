import type { FC } from 'hono/jsx';
import type { AlertListItem } from '../../alerts/alert-list.js';
import type { ChangeReview } from '../../changes/change-review.js';
import { groupFindingsByTool } from '../../diff/group-findings.js';
import type { Finding } from '../../diff/index.js';
import type { TextComparison, ToolComparison } from '../../diff/tool-comparison.js';
import { ChangeAlerts } from './change-alerts.js';
import { Layout } from './layout.js';
import { surfaceCountsText } from '../../listings/surface-text.js';
import {
  approverText,
  Hash,
  movedCell,
  Notice,
  Sev,
  Shown,
  When,
  type PageContext,
} from './parts.js';
import { declaredCell } from './server-page.js';

const value = (present: boolean, v: unknown) => (present ? (JSON.stringify(v) ?? String(v)) : null);

const FindingItem: FC<{ finding: Finding }> = ({ finding }) => {
  const record = finding.record;
  return (
    <li class="finding">
      <p>
        <Sev severity={finding.severity} /> <code>{finding.kind}</code>
        {finding.field ? (
          <>
            {' '}
            <code>
              <Shown text={finding.field} />
            </code>
          </>
        ) : null}
        {'before' in finding || 'after' in finding ? (
          <>
            {': '}
            <code>
              <Shown text={value('before' in finding, finding.before)} max={200} />
            </code>
            {' → '}
            <code>
              <Shown text={value('after' in finding, finding.after)} max={200} />
            </code>
          </>
        ) : null}
      </p>
      <p>
        <Shown text={finding.explanation} />
      </p>
      {record?.content ? (
        <dl class="fields content">
          <dt>found in</dt>
          <dd>
            <code>
              <Shown text={record.content.path} />
            </code>
            {record.content.location === 'key' ? ' (a property name)' : ''}
          </dd>
          <dt>the text</dt>
          <dd>
            <Shown text={record.content.excerpt} max={600} />
          </dd>
          {record.content.hidden ? (
            <>
              <dt>what a reader does not see</dt>
              <dd>
                <Shown text={record.content.hidden} max={600} />
              </dd>
            </>
          ) : null}
          {record.content.rules.length > 0 ? (
            <>
              <dt>why</dt>
              <dd>
                <ul class="plain">
                  {record.content.rules.map((rule) => (
                    <li>
                      <Shown text={rule.reason} />
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          ) : null}
        </dl>
      ) : null}
      {record ? (
        <details>
          <summary>Interpretation record</summary>
          <dl class="fields">
            <dt>trust</dt>
            <dd>
              {record.trust.level}: <Shown text={record.trust.implication} />
            </dd>
            <dt>effect on a host</dt>
            <dd>
              <Shown text={record.effect} />
            </dd>
            <dt>stale sessions</dt>
            <dd>
              <Shown text={record.staleSessions.exposure} />
            </dd>
            <dt>control</dt>
            <dd>
              {record.control.action}: <Shown text={record.control.text} />
            </dd>
            <dt>severity</dt>
            <dd>
              base {record.severity.base}
              {record.severity.basis ? (
                <>
                  {' '}
                  (<Shown text={record.severity.basis} />)
                </>
              ) : null}
              {record.severity.escalations.length > 0
                ? `, raised because ${record.severity.escalations.join('; ')}`
                : ''}
            </dd>
            <dt>listings</dt>
            <dd>
              before <Hash hash={record.listings.before.hash} /> (observed{' '}
              {record.listings.before.firstObserved ?? '?'} to{' '}
              {record.listings.before.lastObserved ?? '?'}), after{' '}
              <Hash hash={record.listings.after.hash} />
            </dd>
            {record.renamedFrom ? (
              <>
                <dt>renamed from</dt>
                <dd>
                  <Shown text={record.renamedFrom} />
                </dd>
              </>
            ) : null}
          </dl>
        </details>
      ) : null}
    </li>
  );
};

export const FindingGroups: FC<{ findings: Finding[]; level: 'h3' | 'h4' }> = ({
  findings,
  level,
}) => (
  <>
    {groupFindingsByTool(findings).map((group) => {
      const Heading = level;
      return (
        <section class="group">
          <Heading>
            {group.tool === null ? (
              'The whole listing'
            ) : (
              <code>
                <Shown text={group.tool} />
              </code>
            )}{' '}
            <Sev severity={group.worst} />
          </Heading>
          <ul class="findings">
            {group.findings.map((finding) => (
              <FindingItem finding={finding} />
            ))}
          </ul>
        </section>
      );
    })}
  </>
);

/** One side of a text diff: the shared text with that side's edits marked. */
const DiffSide: FC<{ comparison: TextComparison; side: 'before' | 'after' }> = ({
  comparison,
  side,
}) => {
  if (comparison[side] === null) return <span class="absent">absent</span>;
  return (
    <>
      {comparison.parts.map((part) =>
        part.op === 'same' ? (
          <Shown text={part.text} />
        ) : part.op === 'removed' && side === 'before' ? (
          <del>
            <Shown text={part.text} />
          </del>
        ) : part.op === 'added' && side === 'after' ? (
          <ins>
            <Shown text={part.text} />
          </ins>
        ) : null,
      )}
    </>
  );
};

const TextSides: FC<{ label: string; comparison: TextComparison }> = ({ label, comparison }) =>
  comparison.before === null && comparison.after === null ? null : (
    <div class="text-diff">
      <h4>
        {label} {comparison.changed ? <span class="changed-label">changed</span> : 'unchanged'}
      </h4>
      {comparison.changed ? (
        <div class="sides">
          <pre class="side" aria-label={`${label} before`}>
            <DiffSide comparison={comparison} side="before" />
          </pre>
          <pre class="side" aria-label={`${label} after`}>
            <DiffSide comparison={comparison} side="after" />
          </pre>
        </div>
      ) : (
        <details>
          <summary>Show the {label.toLowerCase()}</summary>
          <pre class="side">
            <Shown text={comparison.after} />
          </pre>
        </details>
      )}
    </div>
  );

const Cell: FC<{ text: string; changed: boolean }> = ({ text, changed }) => (
  <td class={changed ? 'changed' : undefined}>
    {text}
    {changed ? <span class="visually-hidden"> (changed)</span> : null}
  </td>
);

const ToolSides: FC<{ comparison: ToolComparison }> = ({ comparison }) => (
  <section class="tool-sides">
    <h3>
      <code>
        <Shown text={comparison.tool} />
      </code>{' '}
      {comparison.renamedFrom ? (
        <>
          (renamed from{' '}
          <code>
            <Shown text={comparison.renamedFrom} />
          </code>
          ){' '}
        </>
      ) : null}
      <span class="status">{comparison.status}</span>
    </h3>
    <table class="hints">
      <caption>
        Hints of <Shown text={comparison.tool} />, declared and effective, before and after
      </caption>
      <thead>
        <tr>
          <th scope="col">hint</th>
          <th scope="col">declared before</th>
          <th scope="col">declared after</th>
          <th scope="col">effective before</th>
          <th scope="col">effective after</th>
        </tr>
      </thead>
      <tbody>
        {comparison.hints.map((row) => (
          <tr>
            <th scope="row">{row.hint}</th>
            <Cell text={declaredCell(row.before.declared)} changed={row.declaredChanged} />
            <Cell text={declaredCell(row.after.declared)} changed={row.declaredChanged} />
            <Cell
              text={row.before.effective === null ? '—' : String(row.before.effective)}
              changed={row.effectiveChanged}
            />
            <Cell
              text={row.after.effective === null ? '—' : String(row.after.effective)}
              changed={row.effectiveChanged}
            />
          </tr>
        ))}
      </tbody>
    </table>
    <TextSides label="Title" comparison={comparison.title} />
    <TextSides label="Description" comparison={comparison.description} />
    <TextSides label="Input schema" comparison={comparison.inputSchema} />
    <TextSides label="Output schema" comparison={comparison.outputSchema} />
  </section>
);

interface Exposure {
  oldListing?: { hash?: string; firstObserved?: string | null; lastObserved?: string | null };
  notificationSeen?: boolean | null;
  listChangedAdvertised?: boolean | null;
  ttlMs?: number | null;
  cacheScope?: string | null;
}

const StaleWindow: FC<{ exposure: Exposure }> = ({ exposure }) => {
  const old = exposure.oldListing;
  return (
    <dl class="fields">
      <dt>sessions exposed</dt>
      <dd>
        {old?.firstObserved ? (
          <>
            Hosts that listed between <time datetime={old.firstObserved}>{old.firstObserved}</time>{' '}
            and{' '}
            <time datetime={old.lastObserved ?? old.firstObserved}>
              {old.lastObserved ?? old.firstObserved}
            </time>{' '}
            hold listing <Hash hash={old.hash} />
            's values until they list again.
          </>
        ) : (
          'No earlier listing was observed.'
        )}
      </dd>
      <dt>change notification</dt>
      <dd>
        {exposure.notificationSeen === true
          ? 'reached the held session: hosts that re-list on notifications saw it'
          : exposure.notificationSeen === false
            ? exposure.listChangedAdvertised === false
              ? 'none: the server does not advertise change notifications; hosts learn only when they reconnect'
              : 'none reached the held session: a silent change, long-lived sessions keep the old values'
            : 'no held session could have received one'}
      </dd>
      <dt>cache bound</dt>
      <dd>
        {exposure.ttlMs !== null && exposure.ttlMs !== undefined
          ? `a 2026 host re-lists within ${exposure.ttlMs} ms (${exposure.cacheScope ?? 'scope not given'})`
          : 'none given (2025 protocol): sessions hold the values until they re-list'}
      </dd>
    </dl>
  );
};

export const ChangePage: FC<{
  page: PageContext;
  review: ChangeReview;
  /** The change's alert, if it reached the threshold. */
  alerts: AlertListItem[];
}> = ({ page, review, alerts }) => {
  const { change, approval } = review;
  const serverPath = `/servers/${encodeURIComponent(change.server)}`;
  return (
    <Layout title={`Change #${change.id}`} section="changes" page={page}>
      <h1>
        Change #{change.id} of <a href={serverPath}>{change.server}</a>{' '}
        <Sev severity={change.severity} />
      </h1>
      <Notice text={page.notice} />
      <dl class="fields">
        <dt>detected</dt>
        <dd>
          <time datetime={change.detectedAt}>{change.detectedAt}</time> (observation #
          {change.observationId})
        </dd>
        <dt>listings</dt>
        <dd>
          <Hash hash={change.fromHash} /> → <Hash hash={change.toHash} />
        </dd>
        <dt>surfaces moved</dt>
        <dd>{movedCell(change.surfaces, change.fromHash)}</dd>
        {change.listings.before ? (
          <>
            <dt>listing before</dt>
            <dd>{surfaceCountsText(change.listings.before)}</dd>
          </>
        ) : null}
        {change.listings.after ? (
          <>
            <dt>listing after</dt>
            <dd>{surfaceCountsText(change.listings.after)}</dd>
          </>
        ) : null}
        {change.sinceBaseline ? (
          <>
            <dt>drift since approval</dt>
            <dd>
              <Sev severity={change.sinceBaseline.severity} /> from the approved baseline{' '}
              <Hash hash={change.sinceBaseline.baselineHash} /> to this listing, graded as one
              change ({change.sinceBaseline.findings} finding
              {change.sinceBaseline.findings === 1 ? '' : 's'}) when it was recorded
            </dd>
          </>
        ) : null}
      </dl>

      <ChangeAlerts page={page} changeId={change.id} alerts={alerts} />

      <section aria-labelledby="stale-heading">
        <h2 id="stale-heading">Stale-session window</h2>
        <StaleWindow exposure={(change.exposure ?? {}) as Exposure} />
      </section>

      <section aria-labelledby="findings-heading">
        <h2 id="findings-heading">Findings by tool, worst first</h2>
        {review.groups.length === 0 ? (
          <p>No findings: the listing changed in ways that alter nothing hosts read.</p>
        ) : (
          <FindingGroups findings={review.groups.flatMap((group) => group.findings)} level="h3" />
        )}
      </section>

      <section aria-labelledby="sides-heading">
        <h2 id="sides-heading">Each changed tool, before and after</h2>
        {review.tools.length === 0 ? <p>No tool changed.</p> : null}
        {review.tools.map((comparison) => (
          <ToolSides comparison={comparison} />
        ))}
      </section>

      <section
        aria-labelledby="approve-heading"
        data-live="approval"
        data-live-on="baselines changes"
      >
        <h2 id="approve-heading">Baseline</h2>
        {approval.approved ? (
          <p class="ok">
            Listing <Hash hash={approval.listing} /> is the baseline of {approval.server} (
            {approval.baseline
              ? approverText(approval.baseline.approvedBy, approval.baseline.approver)
              : 'the first listing seen'}
            {approval.baseline?.approvedBy === 'operator' ? (
              <>
                {' '}
                <When at={approval.baseline.approvedAt} now={page.now} />
              </>
            ) : null}
            ).
          </p>
        ) : (
          <>
            <p>
              The baseline of {approval.server} is{' '}
              {approval.baseline ? (
                <>
                  <Hash hash={approval.baseline.hash} /> (
                  {approverText(approval.baseline.approvedBy, approval.baseline.approver)}{' '}
                  <When at={approval.baseline.approvedAt} now={page.now} />)
                </>
              ) : (
                'not set'
              )}
              . Approving makes listing <code class="hash-full">{approval.listing}</code> the
              baseline:{' '}
              {approval.againstBaseline
                ? 'against the current baseline, that accepts the findings below.'
                : 'that accepts the findings above.'}
            </p>
            {approval.againstBaseline ? (
              <div class="against-baseline">
                <h3>
                  What approving accepts, against the baseline{' '}
                  <Sev severity={approval.againstBaseline.severity} />
                </h3>
                <FindingGroups findings={approval.againstBaseline.findings} level="h4" />
              </div>
            ) : null}
            {approval.newerListing ? (
              <p class="warning">
                A newer listing (<Hash hash={approval.newerListing} />) has been seen since this
                change; after approving this one, the server drifts from its baseline again.
              </p>
            ) : null}
            <form method="get" action={`${serverPath}/approve`} class="approve">
              <input type="hidden" name="listing" value={approval.listing} />
              <input type="hidden" name="change" value={String(change.id)} />
              <button type="submit" class="primary">
                Approve listing {approval.listing.slice(0, 12)} as the baseline…
              </button>
            </form>
          </>
        )}
      </section>
    </Layout>
  );
};
