import pino from 'pino';
import { ManualClock } from '../clock';
import { EffectRunner } from './effect-runner';

const settled = () => new Promise<void>((r) => setImmediate(r));

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

describe('EffectRunner (the outbox timer)', () => {
  it('runs each effect on its own: a failing one holds up none of the others, and is found due again by the next poll', async () => {
    const runs: string[] = [];
    let due = ['bad', 'a', 'b'];
    const clock = new ManualClock();
    const runner = new EffectRunner({
      clock,
      logger: pino({ level: 'silent' }),
      label: 'test',
      concurrency: 1,
      pollMs: 60_000,
      due: async () => due,
      run: async (id) => {
        runs.push(id);
        if (id === 'bad') throw new Error('receiver down');
      },
    });
    runner.start();
    await runner.poll();
    for (let i = 0; i < 5 && runs.length < 3; i++) await settled();
    expect(runs).toEqual(['bad', 'a', 'b']);
    due = ['bad'];
    clock.advance(1000);
    for (let i = 0; i < 5 && runs.length < 4; i++) await settled();
    expect(runs).toEqual(['bad', 'a', 'b', 'bad']);
    await runner.stop();
  });

  it('keeps at most `concurrency` attempts in flight and runs an id once at a time', async () => {
    const g = gate();
    let inFlight = 0;
    let most = 0;
    const runs: string[] = [];
    const runner = new EffectRunner({
      clock: new ManualClock(),
      logger: pino({ level: 'silent' }),
      label: 'test',
      concurrency: 2,
      due: async () => [],
      run: async (id) => {
        runs.push(id);
        most = Math.max(most, ++inFlight);
        await g.opened;
        inFlight--;
      },
    });
    for (const id of ['a', 'b', 'c', 'a', 'd', 'c']) runner.enqueue(id);
    expect(runs).toEqual(['a', 'b']);
    expect(runner.has('d')).toBe(true);
    g.open();
    for (let i = 0; i < 10 && runs.length < 4; i++) await settled();
    await runner.stop();
    expect(runs).toEqual(['a', 'b', 'c', 'd']);
    expect(most).toBe(2);
  });

  it('hands back what was queued but not started when it stops, and takes nothing after', async () => {
    const g = gate();
    const dropped: string[] = [];
    const runs: string[] = [];
    const runner = new EffectRunner({
      clock: new ManualClock(),
      logger: pino({ level: 'silent' }),
      label: 'test',
      concurrency: 1,
      due: async () => [],
      run: async (id) => {
        runs.push(id);
        await g.opened;
      },
      onDropped: (ids) => dropped.push(...ids),
    });
    runner.enqueue('a');
    runner.enqueue('b');
    const stopping = runner.stop();
    g.open();
    await stopping;
    runner.enqueue('c');
    expect(runs).toEqual(['a']);
    expect(dropped).toEqual(['b']);
  });
});
