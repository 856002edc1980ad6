import { OVERSCAN_ROWS, rowWindow } from './row-window';

describe('row window', () => {
  it('renders the rows in view and the overscan on each side, not the whole list', () => {
    // 1,000,000 rows of 50 px, the viewport 900 px tall and 100,000 px down the list.
    const window = rowWindow(1_000_000, 50, 100_000, 900);
    expect(window).toEqual({ first: 2_000 - OVERSCAN_ROWS, last: 2_018 + OVERSCAN_ROWS });
  });

  it('starts at the first row while the list begins below the viewport top', () => {
    expect(rowWindow(500, 50, -300, 900, 10)).toEqual({ first: 0, last: 22 });
  });

  it('stops at the last row, and keeps one row when scrolled past the end', () => {
    expect(rowWindow(40, 50, 1_800, 900, 10)).toEqual({ first: 26, last: 40 });
    expect(rowWindow(40, 50, 50_000, 900, 10)).toEqual({ first: 39, last: 40 });
  });

  it('renders nothing for an empty list and survives a row not yet measured', () => {
    expect(rowWindow(0, 50, 0, 900)).toEqual({ first: 0, last: 0 });
    expect(rowWindow(10, 0, 0, 900, 0).last).toBe(10);
  });
});
