/**
 * Runs async work one at a time per key, in arrival order, within this process. Commands on one
 * stream (a wallet) then take turns instead of racing: optimistic concurrency still decides between
 * processes, but concurrent requests of one process no longer lose their revision checks to each
 * other and retry (16 writers on one wallet retried ~14 times per credit).
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
