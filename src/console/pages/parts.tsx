import type { FC } from 'hono/jsx';
import type { Approver } from '../../changes/baseline.js';
import type { FeedItem } from '../../changes/change-views.js';
import type { ChangeSeverity } from '../../diff/index.js';
import { movedSurfacesText } from '../../listings/surface-text.js';
import type { Surface } from '../../vocabulary/surfaces.js';
import { visibleSegments } from './visible.js';

/** What every page needs from the request: the session's CSRF token, who, and when. */
export interface PageContext {
  csrf: string;
  actor: string;
  /** The live feed's revision when the page was rendered (console.js compares it). */
  revision: number;
  now: Date;
  /** A fixed message after an action (never text from the request). */
  notice?: string;
}

/**
 * Server text, escaped by JSX like every other text, with invisible and control characters
 * shown as marked visible escapes. `max` cuts long text (descriptions in tables), saying so.
 */
export const Shown: FC<{ text: string | null | undefined; max?: number }> = ({ text, max }) => {
  if (text === null || text === undefined) return <span class="absent">absent</span>;
  const cut = max !== undefined && [...text].length > max;
  const shown = cut ? [...text].slice(0, max).join('') : text;
  return (
    <>
      {visibleSegments(shown).map((segment) =>
        segment.hidden ? (
          <span class="escape" title="a character readers do not see, shown as its code point">
            {segment.text}
          </span>
        ) : (
          segment.text
        ),
      )}
      {cut ? <span class="cut">… (cut; {[...text].length} characters in all)</span> : null}
    </>
  );
};

export const Sev: FC<{ severity: ChangeSeverity }> = ({ severity }) => (
  <span class={`sev sev-${severity}`}>{severity}</span>
);

/** A change's one-line summary in the feeds: its worst finding, or that it has none. */
export const Headline: FC<{ headline: FeedItem['headline']; kind?: boolean }> = ({
  headline,
  kind = true,
}) =>
  headline ? (
    <>
      {headline.tool ? (
        <>
          <code>
            <Shown text={headline.tool} />
          </code>{' '}
        </>
      ) : null}
      {kind ? (
        <>
          <code>{headline.kind}</code>:{' '}
        </>
      ) : null}
      <Shown text={headline.explanation} max={200} />
    </>
  ) : (
    <span class="absent">no findings</span>
  );

/**
 * The surfaces a change moved ("tools, instructions"); a first listing (no listing before)
 * moved none, and says so.
 */
export function movedCell(surfaces: readonly Surface[], fromHash: string | null): string {
  if (fromHash === null) return 'first listing';
  return surfaces.length === 0 ? 'none' : movedSurfacesText(surfaces);
}

/** Whether hosts holding a session were told of the change. */
export function notificationText(seen: boolean | null): string {
  return seen === null ? 'no held session' : seen ? 'seen' : 'none (silent)';
}

export function ago(iso: string, now: Date): string {
  const seconds = Math.round((now.getTime() - new Date(iso).getTime()) / 1000);
  if (seconds < 0) return 'just now';
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

/** A time as its age, with the exact UTC time on hover and in the markup. */
export const When: FC<{ at: string | null | undefined; now: Date }> = ({ at, now }) =>
  at ? (
    <time datetime={at} title={at}>
      {ago(at, now)}
    </time>
  ) : (
    <span class="absent">never</span>
  );

export const Hash: FC<{ hash: string | null | undefined }> = ({ hash }) =>
  hash ? (
    <code class="hash" title={hash}>
      {hash.slice(0, 12)}
    </code>
  ) : (
    <span class="absent">none</span>
  );

/** A POST form with the session's CSRF token and fixed fields, as one button. */
export const PostButton: FC<{
  action: string;
  csrf: string;
  label: string;
  fields?: Record<string, string>;
  variant?: 'primary' | 'plain';
}> = ({ action, csrf, label, fields = {}, variant = 'plain' }) => (
  <form method="post" action={action} class="inline">
    <input type="hidden" name="_csrf" value={csrf} />
    {Object.entries(fields).map(([name, value]) => (
      <input type="hidden" name={name} value={value} />
    ))}
    <button type="submit" class={variant}>
      {label}
    </button>
  </form>
);

export const Notice: FC<{ text?: string }> = ({ text }) =>
  text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;

/** `?name=value&…` of the non-empty values, for links that keep a page's filters. */
export function query(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** How a baseline came to be: "approved by alice (console)", or the first listing seen. */
export function approverText(approvedBy: string, approver: Approver | null): string {
  if (approvedBy !== 'operator') return 'the first listing seen';
  return approver ? `approved by ${approver.name} (${approver.via})` : 'approved by an operator';
}
