/** Runs `fn` the first time only; later calls get the same promise (safe double close). */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= fn());
}
