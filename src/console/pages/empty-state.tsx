import type { Child, FC } from 'hono/jsx';

/**
 * What a list shows when it has nothing to show: with filters, that they matched nothing
 * and a link that clears them (an empty table reads as "nothing happened"); without,
 * that there is nothing yet.
 */
export const EmptyState: FC<{ what: string; filtered: boolean; clear: string; none: Child }> = ({
  what,
  filtered,
  clear,
  none,
}) =>
  filtered ? (
    <p class="empty" role="status">
      No {what} matches these filters. <a href={clear}>Clear the filters</a> to see every {what}.
    </p>
  ) : (
    <p class="empty">{none}</p>
  );
