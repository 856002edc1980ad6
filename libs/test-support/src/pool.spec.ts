import { mapPool } from './pool';

describe('mapPool', () => {
  it('keeps the input order and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const results = await mapPool([50, 10, 30, 0, 20], 2, async (ms, index) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      return `${index}:${ms}`;
    });
    expect(results).toEqual(['0:50', '1:10', '2:30', '3:0', '4:20']);
    expect(most).toBe(2);
  });

  it('answers an empty list with an empty list', async () => {
    expect(await mapPool([], 4, async () => 1)).toEqual([]);
  });
});
