import pino from 'pino';
import { v7 as uuidv7 } from 'uuid';
import { SqlEventStore } from '../../libs/eventstore/src/sql/sql-event-store';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { effectIdFor, effectStream } from '../../libs/domain/outbox/effect';
import { membershipDecider, membershipStream } from '../../libs/domain/identity/membership';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';
import { ManualClock } from '../../libs/runtime/src/clock';
import type { MailMessage } from '../../libs/runtime/src/mailer';
import { EffectScheduler, Outbox } from '../../libs/runtime/src/outbox/outbox';
import type { EffectDoc } from '../../projections/effects/effects.projection';
import { eventually } from '../../test/support/wait';
import { INVITATION_MAIL, invitationMailKind, invitationMailsOf } from './invitation-mailer';

const silent = pino({ level: 'silent' });
const noDue = { find: async () => ({ items: [], total: 0 }) } as unknown as ReadCollection<EffectDoc>;
const smtpError = (responseCode: number) => Object.assign(new Error(`SMTP said ${responseCode}`), { responseCode });

describe('invitation mail on the outbox (PGlite)', () => {
  let store: SqlEventStore;
  beforeAll(async () => {
    store = await SqlEventStore.pglite(undefined, { schema: 'invitation_mail_spec' });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('retries a 451 for that mail alone, records a 550 as failed at once, and records each sent mail once', async () => {
    const clock = new ManualClock();
    const now = () => new Date(clock.now()).toISOString();
    const answers = new Map<string, Error[]>([
      ['later@example.com', [smtpError(451)]],
      ['gone@example.com', [smtpError(550)]],
    ]);
    const sent: string[] = [];
    const send = async (m: MailMessage) => {
      const refusal = answers.get(m.to)?.shift();
      if (refusal) throw refusal;
      sent.push(m.to);
    };
    const outbox = new Outbox({ events: store, effects: async () => noDue, clock, logger: silent, pollMs: 60_000 });
    outbox.register(invitationMailKind({ events: store, send, keyed: (t) => `h(${t})`, publicUrl: 'https://api.example.com', now }));
    const scheduler = new EffectScheduler('saga:invitation-mail', outbox, invitationMailsOf);

    const projectId = `p-${uuidv7()}`;
    const ctx = { metadata: { projectId, actor: 'test' } };
    const invite = (email: string) => handleCommand(store, membershipStream(projectId), membershipDecider, { type: 'InviteMember', projectId, memberId: uuidv7(), email, role: 'member', tokenHash: 'h', now: now() }, ctx);
    for (const email of ['later@example.com', 'gone@example.com', 'ok@example.com']) await invite(email);
    const invited = await store.readStream(membershipStream(projectId));
    const memberOf = (email: string) => invited.find((e) => e.data.email === email)!;
    const effectOf = (email: string) => effectIdFor(memberOf(email).id, INVITATION_MAIL, String(memberOf(email).data.memberId));
    const types = async (email: string) => (await store.readStream(effectStream(effectOf(email)))).map((x) => x.type.replace(/^outbox\.|\.v1$/g, ''));
    const recorded = async () => (await store.readStream(membershipStream(projectId))).filter((e) => e.type.startsWith('identity.InvitationEmail')).map((e) => [e.type, invited.find((i) => i.data.memberId === e.data.memberId)?.data.email, e.data.reason ?? null]);

    await scheduler.handle(invited);
    await eventually(async () => Promise.all(['later@example.com', 'gone@example.com', 'ok@example.com'].map(types)), (all) => all.every((t) => t.length === 2));
    expect(await types('later@example.com')).toEqual(['EffectScheduled', 'EffectFailedRetryable']);
    expect(await types('gone@example.com')).toEqual(['EffectScheduled', 'EffectFailedPermanently']);
    expect(await types('ok@example.com')).toEqual(['EffectScheduled', 'EffectSucceeded']);
    expect(sent).toEqual(['ok@example.com']);

    clock.advance(1_000);
    outbox.observe([{ id: effectOf('later@example.com'), doc: { due: true, dueAt: now() } as EffectDoc }]);
    await eventually(() => types('later@example.com'), (t) => t.includes('EffectSucceeded'));
    // Handed the same events again (a rewound checkpoint): nothing is sent or recorded twice.
    await scheduler.handle(invited);
    await outbox.stop();
    expect(sent.sort()).toEqual(['later@example.com', 'ok@example.com']);
    expect((await recorded()).sort()).toEqual([
      ['identity.InvitationEmailFailed.v1', 'gone@example.com', 'SMTP 550'],
      ['identity.InvitationEmailSent.v1', 'later@example.com', null],
      ['identity.InvitationEmailSent.v1', 'ok@example.com', null],
    ]);
  });
});
