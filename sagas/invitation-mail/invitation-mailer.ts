import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { causedBy, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { invitationToken, redactedInvitationToken, type Keyed } from '../../libs/domain/identity/invitation-token';
import { invitationMailDue, membershipDecider, membershipStream, MembershipEventTypes, type MembershipEvent } from '../../libs/domain/identity/membership';
import { smtpRefusalIsPermanent } from '../../libs/domain/outbox/failures';
import type { MailMessage } from '../../libs/runtime/src/mailer';

/** What the mailer needs of the runtime. */
export interface InvitationMailerDeps {
  events: EventStore;
  send: (message: MailMessage) => Promise<void>;
  /** The server's keyed hash (the token's secret is derived from it, never stored). */
  keyed: Keyed;
  /** Where links point: `<publicUrl>/v1/invites/<token>/accept`. */
  publicUrl: string;
  now: () => string;
}

const MAIL_EVENTS: ReadonlySet<string> = new Set([MembershipEventTypes.MemberInvited, MembershipEventTypes.InvitationResent]);


/**
 * Sends the invitation mail for each MemberInvited and InvitationResent (DECISIONS 15), from a
 * checkpointed subscription: a crash before the checkpoint hands the batch again. Each send is
 * recorded on the membership stream (InvitationEmailSent, keyed by the causing event's id) and
 * skipped when recorded, so a replay sends nothing twice; a crash between the SMTP hand-off and that
 * record re-sends with the same Message-ID (derived from the event id), which receivers dedupe.
 * The link's secret is re-derived here from the ids; it never touches an event, a log or a topic.
 */
export class InvitationMailer {
  readonly name = 'saga:invitation-mail';
  readonly batchSize = 50;

  constructor(private readonly deps: InvitationMailerDeps) {}

  async handle(batch: RecordedEvent[]): Promise<boolean> {
    let handled = false;
    for (const e of batch) {
      if (!MAIL_EVENTS.has(e.type)) continue;
      handled = true;
      await this.mail(e);
    }
    return handled;
  }

  private async mail(e: RecordedEvent): Promise<void> {
    const { memberId, projectId } = (e as unknown as MembershipEvent).data;
    const stream = membershipStream(projectId);
    let state = membershipDecider.initialState();
    for (const h of await this.deps.events.readStream(stream)) state = membershipDecider.evolve(state, { type: h.type, data: h.data } as MembershipEvent);
    const invitation = invitationMailDue(state, memberId, e.id);
    if (!invitation) return;
    const ctx: CommandContext = { metadata: causedBy(e, { projectId, actor: 'system:invitation-mail' }) };
    const messageId = `<${e.id}@invitations.cloud.invalid>`;
    const record = (failure?: string) =>
      handleCommand(this.deps.events, stream, membershipDecider, { type: 'RecordInvitationEmail', projectId, memberId, causationId: e.id, messageId, failure, now: this.deps.now() }, ctx);
    if (Date.parse(invitation.expiresAt!) <= Date.parse(this.deps.now())) {
      await record('expired before it was sent');
      return;
    }
    const link = (token: string) => `${this.deps.publicUrl}/v1/invites/${token}/accept`;
    const body = (token: string) =>
      [
        `You have been invited to join project ${projectId} as ${invitation.role}.`,
        '',
        `Accept the invitation (POST) at: ${link(token)}`,
        '',
        `The link works once and expires at ${invitation.expiresAt}.`,
      ].join('\n');
    try {
      await this.deps.send({
        to: invitation.email,
        subject: 'You are invited to a cloud project',
        text: body(invitationToken(this.deps.keyed, projectId, memberId)),
        logText: body(redactedInvitationToken(projectId, memberId)),
        messageId,
      });
    } catch (err) {
      if (!smtpRefusalIsPermanent(err)) throw err;
      await record(`SMTP ${(err as { responseCode: number }).responseCode}`);
      return;
    }
    await record();
  }
}
