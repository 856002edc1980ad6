import { eventually as poll } from '@ca/messaging/testing';

// The generic helpers live in @ca/test-support; the system suites read them from here.
export { type HttpAnswer, freePorts, http } from '@ca/test-support';

/** Polls until `probe` returns a value (not undefined) or the time is up (every 100 ms). */
export const eventually = <T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000, what = 'condition') =>
  poll(probe, what, timeoutMs);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
