import type { FC } from 'hono/jsx';
import type { ApprovalPreview } from '../../changes/approval-preview.js';
import { FindingGroups } from './change-page.js';
import { Layout } from './layout.js';
import { approverText, Hash, Sev, When, type PageContext } from './parts.js';

/**
 * The second step of an approval: what it accepts, read before anything is written. The
 * change page's button leads here (a GET); only the two forms below post the approval.
 */
export const ApprovePage: FC<{
  page: PageContext;
  preview: ApprovalPreview;
  /** The change the approval started from, to return to afterwards. */
  change?: number;
}> = ({ page, preview, change }) => {
  const { previous, candidate } = preview;
  const serverPath = `/servers/${encodeURIComponent(preview.server)}`;
  const fields = {
    listing: candidate.hash,
    latest: preview.latest ?? '',
    ...(change ? { change: String(change) } : {}),
  };
  const alerts = preview.openAlerts.length;
  return (
    <Layout title={`Approve a baseline of ${preview.server}`} section="none" page={page}>
      <h1>
        Approve a baseline of <a href={serverPath}>{preview.server}</a>
      </h1>
      <dl class="fields approval-summary">
        <dt>previous baseline</dt>
        <dd>
          {previous ? (
            <>
              <Hash hash={previous.hash} /> ({previous.tools} tools),{' '}
              {approverText(previous.approvedBy, previous.approver)},{' '}
              <When at={previous.approvedAt} now={page.now} />
            </>
          ) : (
            'none'
          )}
        </dd>
        <dt>listing to approve</dt>
        <dd>
          <code class="hash-full">{candidate.hash}</code> ({candidate.tools} tools), last seen{' '}
          <When at={candidate.lastObserved} now={page.now} />
        </dd>
        {preview.latest && preview.latest !== candidate.hash ? (
          <>
            <dt>latest listing</dt>
            <dd>
              <code class="hash-full">{preview.latest}</code> (newer: after approving, the server
              drifts from its baseline again)
            </dd>
          </>
        ) : null}
        <dt>open alerts</dt>
        <dd>
          {alerts === 0
            ? 'none of the changes up to this listing has an open alert'
            : `${alerts} of the changes up to this listing`}
        </dd>
      </dl>

      <section aria-labelledby="accepts-heading" class="accepts">
        <h2 id="accepts-heading">
          What approving accepts <Sev severity={preview.severity} />
        </h2>
        {preview.alreadyBaseline ? (
          <p>This listing is the baseline already: approving it again accepts nothing new.</p>
        ) : preview.findings.length === 0 ? (
          <p>No findings: nothing a host reads differs from the previous baseline.</p>
        ) : (
          <>
            <p>
              {preview.findings.length} finding{preview.findings.length === 1 ? '' : 's'} between
              the previous baseline and this listing; after approving, changes are judged against
              this listing and these are no longer reported.
            </p>
            <FindingGroups findings={preview.findings} level="h3" />
          </>
        )}
      </section>

      <form method="post" action={`${serverPath}/baseline`} class="approve confirm">
        <input type="hidden" name="_csrf" value={page.csrf} />
        {Object.entries(fields).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <button type="submit" class="primary" name="acknowledge" value="">
          Approve
        </button>{' '}
        <button
          type="submit"
          class="plain"
          name="acknowledge"
          value="alerts"
          disabled={alerts === 0}
        >
          Approve and acknowledge its alerts ({alerts === 0 ? 'none open' : alerts})
        </button>{' '}
        <a href={change ? `/changes/${change}` : serverPath}>Cancel</a>
      </form>
    </Layout>
  );
};
