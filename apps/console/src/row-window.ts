/**
 * The inventory renders every fetched row up to RENDER_ALL_UP_TO (one `cert-row` per listed
 * certificate, as the console's contract says, for any list a person scrolls through by hand);
 * past that it renders only the rows in view plus a margin (a "window"), so scrolling stays smooth
 * however many pages were fetched: the DOM then holds about a hundred rows, not every row the
 * person scrolled past. Two spacer rows stand for the rows above and below the window.
 */

/** Up to this many fetched rows, all are rendered (docs/console.md#budget). */
export const RENDER_ALL_UP_TO = 10_000;

/** The rows to render: indices `first` (included) to `last` (excluded). */
export interface RowWindow {
  first: number;
  last: number;
}

/** Rows rendered beyond each edge of the viewport, so a fast scroll never shows a gap. */
export const OVERSCAN_ROWS = 30;
/** Before a row was measured (a table row of the inventory is about this tall). */
export const ESTIMATED_ROW_PX = 52;

/**
 * Which rows cover a viewport whose top is `viewTop` px below the first row's top (negative when
 * the list starts below the viewport's top) and `viewHeight` px tall, with `overscan` rows more on
 * each side.
 */
export function rowWindow(
  count: number,
  rowHeight: number,
  viewTop: number,
  viewHeight: number,
  overscan: number = OVERSCAN_ROWS,
): RowWindow {
  if (count <= 0) return { first: 0, last: 0 };
  if (count <= RENDER_ALL_UP_TO) return { first: 0, last: count };
  const height = rowHeight > 0 ? rowHeight : ESTIMATED_ROW_PX;
  const firstVisible = Math.floor(Math.max(0, viewTop) / height);
  const lastVisible = Math.ceil(Math.max(0, viewTop + viewHeight) / height);
  const first = Math.min(Math.max(0, firstVisible - overscan), Math.max(0, count - 1));
  const last = Math.min(count, Math.max(first + 1, lastVisible + overscan));
  return { first, last };
}
