import { KeyedLock } from './keyed-lock';

describe('KeyedLock', () => {
  it('runs the work of one key one at a time in arrival order, other keys alongside, and survives a failure', async () => {
    const lock = new KeyedLock();
    const log: string[] = [];
    let releaseFirst!: () => void;
    const first = lock.run('a', () => new Promise<void>((r) => (releaseFirst = () => (log.push('a1'), r()))));
    const failing = lock.run('a', async () => {
      log.push('a2');
      throw new Error('boom');
    });
    const third = lock.run('a', async () => log.push('a3'));
    const other = lock.run('b', async () => log.push('b1'));
    await other;
    expect(log).toEqual(['b1']); // b did not wait for a
    releaseFirst();
    await first;
    await expect(failing).rejects.toThrow('boom');
    await third;
    expect(log).toEqual(['b1', 'a1', 'a2', 'a3']);
  });
});
