/**
 * Polls `probe` every `intervalMs` until it returns a value (not undefined) or `timeoutMs` is up:
 * how a test waits for an event to take effect somewhere else. The last error thrown by `probe`
 * is named in the timeout's message.
 */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  what = 'condition',
  timeoutMs = 5_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what} not reached within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
