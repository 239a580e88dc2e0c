import pino from 'pino';
import type { EventStore, NewEvent, RecordedEvent } from '../../../eventstore/src/event-store.port';
import { WrongExpectedRevisionError } from '../../../eventstore/src/event-store.port';
import { effectIdFor, effectStream, type EffectOutcome } from '../../../domain/outbox/effect';
import type { ReadCollection } from '../../../readstore/src/read-store.port';
import type { EffectDoc } from '../../../../projections/effects/effects.projection';
import { ManualClock } from '../clock';
import { EffectScheduler, Outbox, type EffectKind } from './outbox';

/** The log in memory: streams with expected revisions, positions in append order. */
function memoryLog() {
  const all: RecordedEvent[] = [];
  const store = {
    async append(streamId: string, events: NewEvent[], { expectedRevision }: { expectedRevision: 'no_stream' | 'any' | number }) {
      const current = all.filter((e) => e.streamId === streamId);
      const actual = current.length ? current[current.length - 1].revision : 'no_stream';
      if (expectedRevision !== 'any' && expectedRevision !== actual) throw new WrongExpectedRevisionError(streamId, expectedRevision, actual);
      for (const [i, e] of events.entries()) all.push({ ...e, streamId, revision: current.length + i, position: all.length + 1, recordedAt: new Date().toISOString() });
      return { nextRevision: current.length + events.length - 1, position: all.length };
    },
    async readStream(streamId: string) {
      return all.filter((e) => e.streamId === streamId);
    },
    async readAll({ fromPosition, maxCount }: { fromPosition: number; maxCount: number }) {
      return all.filter((e) => e.position > fromPosition).slice(0, maxCount);
    },
  };
  return { store: store as unknown as EventStore, all, types: (id: string) => all.filter((e) => e.streamId === effectStream(id)).map((e) => e.type.replace(/^outbox\.|\.v1$/g, '')) };
}

/** A cause in the log: one mail to each address it names. */
async function cause(log: ReturnType<typeof memoryLog>, id: string, to: string[]): Promise<RecordedEvent> {
  await log.store.append(`thing-${id}`, [{ id, type: 'things.ThingHappened.v1', data: { to }, metadata: { schemaVersion: 1, projectId: 'p1' } }], { expectedRevision: 'no_stream' });
  return log.all[log.all.length - 1];
}

function setup(answer: (target: string, attempt: number) => EffectOutcome | Promise<EffectOutcome>) {
  const log = memoryLog();
  const clock = new ManualClock();
  const sent: string[] = [];
  const gaveUp: string[] = [];
  const noDue = { find: async () => ({ items: [], total: 0 }) } as unknown as ReadCollection<EffectDoc>;
  const outbox = new Outbox({ events: log.store, effects: async () => noDue, clock, logger: pino({ level: 'silent' }), concurrency: 4, pollMs: 60_000 });
  const kind: EffectKind = {
    kind: 'test.mail',
    policy: { delaysMs: [1_000] },
    async perform(effect) {
      sent.push(`${effect.target}#${effect.attempt}`);
      return answer(effect.target, effect.attempt);
    },
    async gaveUp(effect, _cause, reason) {
      gaveUp.push(`${effect.target}: ${reason}`);
    },
  };
  outbox.register(kind);
  const scheduler = new EffectScheduler('saga:test-mail', outbox, (e) => ((e.data as { to?: string[] }).to ?? []).map((target) => ({ kind: 'test.mail', target, projectId: 'p1' })));
  /** Runs every effect of these causes that is due now, as the timer would (its poll reads the effects model). */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  return { log, clock, sent, gaveUp, outbox, scheduler, settle };
}

describe('Outbox (effects on their own streams)', () => {
  it('schedules each effect once under an id derived from its cause, and records its outcome on its own stream', async () => {
    const { log, sent, scheduler, settle } = setup(() => ({ ok: true, receipt: { messageId: '<m>' } }));
    const e = await cause(log, 'ev1', ['a@x', 'b@x']);
    expect(await scheduler.handle([e])).toBe(true);
    await settle();
    // The same cause again (a replay after a crash): nothing is scheduled or sent twice.
    await scheduler.handle([e]);
    await settle();
    expect(sent.sort()).toEqual(['a@x#1', 'b@x#1']);
    expect(log.types(effectIdFor('ev1', 'test.mail', 'a@x'))).toEqual(['EffectScheduled', 'EffectSucceeded']);
    expect(log.types(effectIdFor('ev1', 'test.mail', 'b@x'))).toEqual(['EffectScheduled', 'EffectSucceeded']);
  });

  it('lets a failing effect hold up no other, retries it when due, and gives up when the policy says so', async () => {
    const { log, clock, sent, gaveUp, outbox, scheduler, settle } = setup((target) => (target === 'down@x' ? { ok: false, retryable: true, reason: 'SMTP 451' } : { ok: true, receipt: {} }));
    await scheduler.handle([await cause(log, 'ev1', ['down@x', 'ok@x']), await cause(log, 'ev2', ['ok2@x'])]);
    await settle();
    expect(sent.sort()).toEqual(['down@x#1', 'ok2@x#1', 'ok@x#1']);
    const down = effectIdFor('ev1', 'test.mail', 'down@x');
    expect(log.types(down)).toEqual(['EffectScheduled', 'EffectFailedRetryable']);
    // Not due yet: an attempt handed over early sends nothing.
    outbox.observe([{ id: down, doc: { due: true, dueAt: new Date(clock.now()).toISOString() } as EffectDoc }]);
    await settle();
    expect(sent.filter((s) => s.startsWith('down'))).toEqual(['down@x#1']);
    clock.advance(1_000);
    outbox.observe([{ id: down, doc: { due: true, dueAt: new Date(clock.now()).toISOString() } as EffectDoc }]);
    await settle();
    expect(sent.filter((s) => s.startsWith('down'))).toEqual(['down@x#1', 'down@x#2']);
    expect(log.types(down)).toEqual(['EffectScheduled', 'EffectFailedRetryable', 'EffectFailedPermanently']);
    expect(gaveUp).toEqual(['down@x: gave up after 2 attempts: SMTP 451']);
  });

  it('takes a thrown error for a retryable failure, and a permanent refusal for the end', async () => {
    const { log, scheduler, settle, gaveUp } = setup((target) => {
      if (target === 'boom@x') throw new Error('connect ECONNREFUSED');
      return { ok: false, retryable: false, reason: 'SMTP 550' };
    });
    await scheduler.handle([await cause(log, 'ev1', ['boom@x', 'gone@x'])]);
    await settle();
    const failed = (target: string) => log.all.filter((e) => e.streamId === effectStream(effectIdFor('ev1', 'test.mail', target))).slice(1).map((e) => [e.type, e.data.reason]);
    expect(failed('boom@x')).toEqual([['outbox.EffectFailedRetryable.v1', 'connect ECONNREFUSED']]);
    expect(failed('gone@x')).toEqual([['outbox.EffectFailedPermanently.v1', 'SMTP 550']]);
    expect(gaveUp).toEqual([]); // a refusal is the kind's to record; only spent retries are reported
  });

  it('ends the effects of a kind this process does not run (a channel no longer configured), sending nothing', async () => {
    const { log, sent, outbox, settle } = setup(() => ({ ok: true, receipt: {} }));
    const e = await cause(log, 'ev1', []);
    await outbox.schedule(e, [{ kind: 'test.unconfigured', target: 't1', projectId: 'p1' }]);
    await settle();
    expect(sent).toEqual([]);
    expect(log.all.filter((x) => x.streamId === effectStream(effectIdFor('ev1', 'test.unconfigured', 't1'))).map((x) => [x.type, x.data.reason])).toEqual([
      ['outbox.EffectScheduled.v1', undefined],
      ['outbox.EffectFailedPermanently.v1', 'test.unconfigured is not configured'],
    ]);
  });
});
