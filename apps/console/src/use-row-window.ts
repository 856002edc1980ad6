import { RefObject } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ESTIMATED_ROW_PX, RowWindow, rowWindow } from './row-window';

/**
 * The window of `count` rows in `body` (a `<tbody>` whose first child is the top spacer), kept
 * current as the page scrolls or resizes; also the measured height of one row, for the spacers.
 */
export function useRowWindow(
  count: number,
  body: RefObject<HTMLElement | null>,
): RowWindow & { rowHeight: number } {
  const [state, setState] = useState<RowWindow & { rowHeight: number }>(() => ({
    ...rowWindow(count, ESTIMATED_ROW_PX, 0, globalThis.innerHeight ?? 900),
    rowHeight: ESTIMATED_ROW_PX,
  }));
  const measured = useRef(0);

  useLayoutEffect(() => {
    const update = () => {
      const element = body.current;
      if (!element) return;
      const rows = element.querySelectorAll<HTMLElement>('tr[data-row]');
      if (rows.length > 0) {
        const top = rows[0].getBoundingClientRect().top;
        const bottom = rows[rows.length - 1].getBoundingClientRect().bottom;
        if (bottom > top) measured.current = (bottom - top) / rows.length;
      }
      const rowHeight = measured.current || ESTIMATED_ROW_PX;
      const next = rowWindow(count, rowHeight, -element.getBoundingClientRect().top, innerHeight);
      setState((previous) =>
        previous.first === next.first && previous.last === next.last && previous.rowHeight === rowHeight
          ? previous
          : { ...next, rowHeight },
      );
    };
    // One update per frame, however many scroll events the frame had.
    let frame = 0;
    const schedule = () => {
      if (!frame)
        frame = requestAnimationFrame(() => {
          frame = 0;
          update();
        });
    };
    update();
    addEventListener('scroll', schedule, { passive: true });
    addEventListener('resize', schedule);
    return () => {
      removeEventListener('scroll', schedule);
      removeEventListener('resize', schedule);
      if (frame) cancelAnimationFrame(frame);
    };
  }, [count, body]);

  // A window computed for an earlier, longer list may reach past the end of this one.
  const first = Math.min(state.first, Math.max(0, count - 1));
  return { first, last: Math.min(count, Math.max(state.last, first)), rowHeight: state.rowHeight };
}
