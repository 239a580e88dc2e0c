import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { effectIdFor, effectStream } from '../../libs/domain/outbox/effect';
import { ticketForwardingStream } from '../../libs/domain/support/forwarding';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import { ManualClock } from '../../libs/runtime/src/clock';
import { EffectScheduler, Outbox } from '../../libs/runtime/src/outbox/outbox';
import type { EffectDoc } from '../../projections/effects/effects.projection';
import { eventually } from '../../test/support/wait';
import { forwardKind, forwardsOf, ticketForwardKind, type ForwardChannelDriver } from './ticket-forwarding';

const author = { name: 'ops-key', email: null, isSupport: false };
const silent = pino({ level: 'silent' });
const noDue = { find: async () => ({ items: [], total: 0 }) } as unknown as ReadCollection<EffectDoc>;

describe('ticket forwarding on the outbox (PGlite)', () => {
  let store: SqlEventStore;
  beforeAll(async () => {
    store = await SqlEventStore.pglite(undefined, { schema: 'forwarding_spec' });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('retries a failing tracker for that forward alone, holds a message until its ticket has an issue, and sends nothing twice on replay', async () => {
    const clock = new ManualClock();
    const now = () => new Date(clock.now()).toISOString();
    const outbox = new Outbox({ events: store, effects: async () => noDue, clock, logger: silent, pollMs: 60_000 });
    let failing = 1;
    const sent: string[] = [];
    const tracker: ForwardChannelDriver = {
      channel: 'tracker',
      async send(source, state) {
        sent.push(`${source.kind}:${source.eventId}`);
        if (source.kind === 'ticket') {
          if (failing-- > 0) throw new Error('tracker answered 503');
          return { issueNumber: 42 };
        }
        return state.issueNumber === null ? { abandon: 'no issue' } : { issueNumber: state.issueNumber, commentId: 7 };
      },
    };
    outbox.register(ticketForwardKind(store, tracker, now, silent));
    const scheduler = new EffectScheduler('saga:support-forward-tracker', outbox, forwardsOf('tracker', true));

    const ticketId = uuidv7();
    const ticket = `ticket-${ticketId}`;
    const base = { ticketId, projectId: 'p1', number: 'TCK-000001', subject: 'Disk' };
    await store.append(ticket, [
      { id: uuidv7(), type: 'support.TicketOpened.v1', data: { ...base, message: 'slow', priority: 'low', category: null, author, openedAt: now() }, metadata: { schemaVersion: 1, projectId: 'p1' } },
      { id: uuidv7(), type: 'support.TicketMessageAdded.v1', data: { ...base, messageId: 'm1', content: 'any news?', author, addedAt: now() }, metadata: { schemaVersion: 1, projectId: 'p1' } },
    ], { expectedRevision: 'no_stream' });
    const [opened, added] = await store.readStream(ticket);
    const effectOf = (e: RecordedEvent) => effectIdFor(e.id, forwardKind('tracker'), ticketId);
    const types = async (e: RecordedEvent) => (await store.readStream(effectStream(effectOf(e)))).map((x) => x.type.replace(/^outbox\.|\.v1$/g, ''));

    await scheduler.handle([opened, added]);
    // The ticket's 503 is retried later; its message waits for the issue instead of being abandoned.
    await eventually(() => types(opened), (t) => t.length === 2);
    await eventually(() => types(added), (t) => t.length === 2);
    expect(await types(opened)).toEqual(['EffectScheduled', 'EffectFailedRetryable']);
    expect(await types(added)).toEqual(['EffectScheduled', 'EffectFailedRetryable']);
    expect(sent).toEqual([`ticket:${opened.id}`]);

    clock.advance(1_000);
    outbox.observe([{ id: effectOf(opened), doc: { due: true, dueAt: now() } as EffectDoc }]);
    await eventually(() => types(opened), (t) => t.includes('EffectSucceeded'));
    outbox.observe([{ id: effectOf(added), doc: { due: true, dueAt: now() } as EffectDoc }]);
    await eventually(() => types(added), (t) => t.includes('EffectSucceeded'));
    const records = (await store.readStream(ticketForwardingStream('tracker', ticketId))).map((e) => [e.type, e.data.issueNumber, e.data.commentId ?? null]);
    expect(records).toEqual([
      ['support.TicketForwarded.v1', 42, null],
      ['support.TicketMessageForwarded.v1', 42, 7],
    ]);

    // Handed the same events again (a rewound checkpoint): nothing is scheduled or sent twice.
    await scheduler.handle([opened, added]);
    await outbox.stop();
    expect(sent).toEqual([`ticket:${opened.id}`, `ticket:${opened.id}`, `message:${added.id}`]);
    expect(await types(opened)).toEqual(['EffectScheduled', 'EffectFailedRetryable', 'EffectSucceeded']);
  });
});
