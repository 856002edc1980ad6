import { OVERSCAN_ROWS, RENDER_ALL_UP_TO, rowWindow } from './row-window';

describe('row window', () => {
  it('renders the rows in view and the overscan on each side, not the whole list', () => {
    // 1,000,000 rows of 50 px, the viewport 900 px tall and 100,000 px down the list.
    const window = rowWindow(1_000_000, 50, 100_000, 900);
    expect(window).toEqual({ first: 2_000 - OVERSCAN_ROWS, last: 2_018 + OVERSCAN_ROWS });
  });

  it('renders every row of a list a person scrolls by hand: one cert-row per listed certificate', () => {
    expect(rowWindow(2_033, 50, 60_000, 900)).toEqual({ first: 0, last: 2_033 });
    expect(rowWindow(RENDER_ALL_UP_TO, 50, 0, 900)).toEqual({ first: 0, last: RENDER_ALL_UP_TO });
  });

  const LONG = RENDER_ALL_UP_TO + 500;

  it('starts at the first row while the list begins below the viewport top', () => {
    expect(rowWindow(LONG, 50, -300, 900, 10)).toEqual({ first: 0, last: 22 });
  });

  it('stops at the last row, and keeps one row when scrolled past the end', () => {
    const end = LONG * 50;
    expect(rowWindow(LONG, 50, end - 200, 900, 10)).toEqual({ first: LONG - 14, last: LONG });
    expect(rowWindow(LONG, 50, end * 2, 900, 10)).toEqual({ first: LONG - 1, last: LONG });
  });

  it('renders nothing for an empty list and survives a row not yet measured', () => {
    expect(rowWindow(0, 50, 0, 900)).toEqual({ first: 0, last: 0 });
    expect(rowWindow(LONG, 0, 0, 900, 0).last).toBeGreaterThan(0);
  });
});
