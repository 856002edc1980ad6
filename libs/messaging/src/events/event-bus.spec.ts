import { runEnd } from './event-bus';

describe('runEnd', () => {
  const events = ['a', 'a', 'b', 'a', 'a', 'a'].map((type) => ({ type }));

  it('ends a run at the first event of another type', () => {
    expect(runEnd(events, 0)).toBe(2);
    expect(runEnd(events, 1)).toBe(2);
  });

  it('makes a run of one of an event between others', () => {
    expect(runEnd(events, 2)).toBe(3);
  });

  it('ends a run that reaches the last event at the end', () => {
    expect(runEnd(events, 3)).toBe(6);
    expect(runEnd(events.slice(0, 1), 0)).toBe(1);
  });
});
