interface Waiter {
  resolve(count: number): void;
  reject(error: unknown): void;
}

interface Lane {
  running: boolean;
  waiting: Waiter[];
}

/**
 * Adds one to a shared counter per call, with one `addAndGet` per batch of concurrent calls on
 * the same counter: a call that arrives while that counter's statement is in flight joins the
 * next one, which adds the whole batch at once. Each caller gets the count its own increment
 * made, as if the increments had run one by one (the batch's are consecutive); nothing waits for
 * a timer. A failed statement fails every call of its batch.
 */
export class IncrementBatcher<Key> {
  private readonly lanes = new Map<string, Lane>();

  constructor(
    private readonly addAndGet: (key: Key, amount: number) => Promise<number>,
    private readonly idOf: (key: Key) => string,
  ) {}

  increment(key: Key): Promise<number> {
    const id = this.idOf(key);
    let lane = this.lanes.get(id);
    if (!lane) {
      lane = { running: false, waiting: [] };
      this.lanes.set(id, lane);
    }
    const { waiting } = lane;
    const counted = new Promise<number>((resolve, reject) => waiting.push({ resolve, reject }));
    if (!lane.running) void this.run(id, key, lane);
    return counted;
  }

  private async run(id: string, key: Key, lane: Lane): Promise<void> {
    lane.running = true;
    while (lane.waiting.length > 0) {
      const batch = lane.waiting.splice(0);
      try {
        const total = await this.addAndGet(key, batch.length);
        batch.forEach((waiter, i) => waiter.resolve(total - batch.length + 1 + i));
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
      }
    }
    this.lanes.delete(id);
  }
}
