import type { FC } from 'hono/jsx';
import { SEVERITIES } from '../../diff/index.js';
import type { Timeline } from '../../read-models/timeline.js';

/*
 * The server page's timeline as inline SVG (no script, no inline style: colours come from
 * classes in console.css). Lanes, top to bottom: listings as spans (one colour per
 * listing, the baseline outlined), outages as gaps cut through them; changes as marks
 * coloured by severity, a circle when the observation that saw it was a re-list after a
 * change notification and a diamond when it was a probe; and the re-lists that change
 * notifications caused, as ticks.
 */

const WIDTH = 960;
const LEFT = 88;
const RIGHT = 16;
const PLOT = WIDTH - LEFT - RIGHT;
const LANES = { listings: 18, changes: 64, notifications: 98 } as const;
const HEIGHT = 136;
const PALETTE = 6;

export const TimelineSvg: FC<{
  timeline: Timeline;
  baselineHash: string | null;
  label: string;
}> = ({ timeline, baselineHash, label }) => {
  const from = Date.parse(timeline.from);
  const to = Date.parse(timeline.to);
  const span = Math.max(1, to - from);
  const x = (iso: string) =>
    LEFT + (Math.min(Math.max(Date.parse(iso) - from, 0), span) / span) * PLOT;
  const colours = new Map<string, number>();
  for (const listing of timeline.spans) {
    if (!colours.has(listing.hash)) colours.set(listing.hash, colours.size % PALETTE);
  }
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((fraction) => ({
    x: LEFT + fraction * PLOT,
    // Seconds matter on a window of minutes (a server registered just now), not on a week.
    text: new Date(from + fraction * span)
      .toISOString()
      .slice(span < 3_600_000 ? 11 : 5, span < 3_600_000 ? 19 : 16)
      .replace('T', ' '),
  }));
  return (
    <svg
      class="timeline"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      aria-labelledby="timeline-title timeline-desc"
    >
      <title id="timeline-title">{label}</title>
      <desc id="timeline-desc">
        {`${timeline.spans.length} listing spans, ${timeline.changes.length} changes, ${timeline.outages.length} outages and ${timeline.notifications.length} change notifications between ${timeline.from} and ${timeline.to}.`}
      </desc>
      <text class="tl-lane" x="4" y={LANES.listings + 14}>
        listings
      </text>
      <text class="tl-lane" x="4" y={LANES.changes + 5}>
        changes
      </text>
      <text class="tl-lane" x="4" y={LANES.notifications + 5}>
        notified
      </text>
      <line class="tl-axis" x1={LEFT} x2={LEFT + PLOT} y1={HEIGHT - 22} y2={HEIGHT - 22} />
      {ticks.map((tick, index) => (
        <text
          class="tl-tick"
          x={tick.x}
          y={HEIGHT - 6}
          text-anchor={index === 0 ? 'start' : index === ticks.length - 1 ? 'end' : 'middle'}
        >
          {`${tick.text} UTC`}
        </text>
      ))}
      {timeline.spans.map((listing) => {
        const start = x(listing.from);
        const end = Math.max(x(listing.to), start + 3);
        return (
          <rect
            class={`tl-span tl-listing-${colours.get(listing.hash)}${listing.hash === baselineHash ? ' tl-baseline' : ''}`}
            x={start.toFixed(1)}
            y={LANES.listings}
            width={(end - start).toFixed(1)}
            height="20"
          >
            <title>{`listing ${listing.hash.slice(0, 12)}${listing.hash === baselineHash ? ' (the baseline)' : ''}: ${listing.observations} observations, ${listing.from} to ${listing.to}`}</title>
          </rect>
        );
      })}
      {timeline.outages.map((outage) => {
        const start = x(outage.from);
        const end = Math.max(x(outage.to ?? timeline.to), start + 3);
        return (
          <rect
            class="tl-outage"
            x={start.toFixed(1)}
            y={LANES.listings - 4}
            width={(end - start).toFixed(1)}
            height={LANES.notifications - LANES.listings + 12}
          >
            <title>{`down from ${outage.from}${outage.to ? ` to ${outage.to}` : ' (still down)'}: ${outage.reason}`}</title>
          </rect>
        );
      })}
      <line class="tl-guide" x1={LEFT} x2={LEFT + PLOT} y1={LANES.changes} y2={LANES.changes} />
      {timeline.changes.map((change) => {
        const cx = x(change.at);
        const notified = change.trigger === 'notification';
        const how = notified
          ? 'seen on a re-list after a change notification'
          : `seen by a ${change.trigger ?? 'probe'}${change.notificationSeen === false ? ', no notification reached the held session' : ''}`;
        return (
          <a href={`/changes/${change.id}`}>
            {notified ? (
              <circle
                class={`tl-mark sev-fill-${change.severity}`}
                cx={cx.toFixed(1)}
                cy={LANES.changes}
                r="7"
              >
                <title>{`change #${change.id}, ${change.severity}, ${how}, ${change.at}`}</title>
              </circle>
            ) : (
              <path
                class={`tl-mark sev-fill-${change.severity}`}
                d={`M ${cx.toFixed(1)} ${LANES.changes - 9} l 8 9 l -8 9 l -8 -9 z`}
              >
                <title>{`change #${change.id}, ${change.severity}, ${how}, ${change.at}`}</title>
              </path>
            )}
          </a>
        );
      })}
      {timeline.notifications.map((at) => {
        const tx = x(at).toFixed(1);
        return (
          <line
            class="tl-notification"
            x1={tx}
            x2={tx}
            y1={LANES.notifications - 6}
            y2={LANES.notifications + 6}
          >
            <title>{`re-listed after a change notification, ${at}`}</title>
          </line>
        );
      })}
    </svg>
  );
};

/** What each shape and colour of the timeline means (the keys are console.css classes). */
export const TimelineLegend: FC = () => (
  <ul class="legend" aria-label="Timeline legend">
    <li>
      <span class="key key-listings" aria-hidden="true"></span> a listing, from its first to its
      last observation: each listing its own colour
    </li>
    <li>
      <span class="key key-baseline" aria-hidden="true"></span> the baseline listing, outlined
    </li>
    <li>
      <span class="key key-outage" aria-hidden="true"></span> an outage: a gap
    </li>
    <li>
      <span class="key key-circle" aria-hidden="true"></span> a change seen on a re-list after a
      change notification
    </li>
    <li>
      <span class="key key-diamond" aria-hidden="true"></span> a change seen by a probe
    </li>
    <li>
      a change's colour is its severity:{' '}
      {SEVERITIES.map((severity) => (
        <>
          <span class={`key key-sev-${severity}`} aria-hidden="true"></span> {severity}{' '}
        </>
      ))}
    </li>
    <li>
      <span class="key key-tick" aria-hidden="true"></span> a re-list after a change notification
    </li>
  </ul>
);
