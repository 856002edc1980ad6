/** A request handler as registered by the in-process server: JSON in (with headers), JSON out. */
export type InProcessHandler = (payload: unknown, headers: Record<string, string>) => Promise<unknown>;

/**
 * The in-process stand-in for NATS subjects: a map from pattern to the one server that answers
 * it. Several servers may register (as queue-group members would); the last one wins.
 */
export class InProcessRegistry {
  private readonly handlers = new Map<string, InProcessHandler>();

  register(pattern: string, handler: InProcessHandler): void {
    this.handlers.set(pattern, handler);
  }

  unregister(pattern: string, handler: InProcessHandler): void {
    if (this.handlers.get(pattern) === handler) this.handlers.delete(pattern);
  }

  resolve(pattern: string): InProcessHandler | undefined {
    return this.handlers.get(pattern);
  }
}
