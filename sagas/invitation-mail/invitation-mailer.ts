import type { EventStore, RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { causedBy, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { invitationToken, redactedInvitationToken, type Keyed } from '../../libs/domain/identity/invitation-token';
import { invitationMailDue, membershipDecider, membershipStream, MembershipEventTypes, type MembershipEvent } from '../../libs/domain/identity/membership';
import type { EffectOutcome } from '../../libs/domain/outbox/effect';
import { smtpFailure } from '../../libs/domain/outbox/failures';
import { MESSAGE_RETRY_POLICY } from '../../libs/domain/outbox/retry-policy';
import type { MailMessage } from '../../libs/runtime/src/mailer';
import type { EffectKind, EffectRequest, PendingEffect } from '../../libs/runtime/src/outbox/outbox';

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

export const INVITATION_MAIL = 'identity.invitation-mail';

/** The outbox effect each MemberInvited and InvitationResent asks for: one mail to the invited address. */
export function invitationMailsOf(e: RecordedEvent): EffectRequest[] {
  if (e.type !== MembershipEventTypes.MemberInvited && e.type !== MembershipEventTypes.InvitationResent) return [];
  const { memberId, projectId } = (e as unknown as MembershipEvent).data;
  return [{ kind: INVITATION_MAIL, target: memberId, projectId }];
}

/**
 * The invitation mail (DECISIONS 15), an outbox effect: sent through the Mailer, then recorded as
 * InvitationEmailSent on the membership stream (the invites' `mail` attribute and the identity topic
 * show it: contract), keyed by the causing event's id. An attempt that finds it recorded sends
 * nothing; a crash between the SMTP hand-off and that record re-sends with the same Message-ID
 * (derived from the event id), which receivers dedupe. An SMTP 5xx (or spent retries) is recorded as
 * InvitationEmailFailed: the invitation stays and resend tries again. The link's secret is re-derived
 * here from the ids; it never touches an event, a log or a topic.
 */
export function invitationMailKind(deps: InvitationMailerDeps): EffectKind {
  const record = (cause: RecordedEvent, failure?: string) => {
    const { memberId, projectId } = (cause as unknown as MembershipEvent).data;
    const ctx: CommandContext = { metadata: causedBy(cause, { projectId, actor: 'system:invitation-mail' }) };
    const command = { type: 'RecordInvitationEmail' as const, projectId, memberId, causationId: cause.id, messageId: messageIdOf(cause), failure, now: deps.now() };
    return handleCommand(deps.events, membershipStream(projectId), membershipDecider, command, ctx);
  };
  return {
    kind: INVITATION_MAIL,
    policy: MESSAGE_RETRY_POLICY,
    async perform(_effect: PendingEffect, cause: RecordedEvent): Promise<EffectOutcome> {
      const { memberId, projectId } = (cause as unknown as MembershipEvent).data;
      const { state } = await aggregateStream(deps.events, membershipStream(projectId), membershipDecider);
      const invitation = invitationMailDue(state, memberId, cause.id);
      // Recorded already (a crash after the record), or no longer an invitation (accepted, cancelled).
      if (!invitation) return { ok: true, receipt: { messageId: null } };
      if (Date.parse(invitation.expiresAt!) <= Date.parse(deps.now())) {
        await record(cause, 'expired before it was sent');
        return { ok: false, retryable: false, reason: 'expired before it was sent' };
      }
      const link = (token: string) => `${deps.publicUrl}/v1/invites/${token}/accept`;
      const body = (token: string) =>
        [`You have been invited to join project ${projectId} as ${invitation.role}.`, '', `Accept the invitation (POST) at: ${link(token)}`, '', `The link works once and expires at ${invitation.expiresAt}.`].join('\n');
      try {
        await deps.send({
          to: invitation.email,
          subject: 'You are invited to a cloud project',
          text: body(invitationToken(deps.keyed, projectId, memberId)),
          logText: body(redactedInvitationToken(projectId, memberId)),
          messageId: messageIdOf(cause),
        });
      } catch (err) {
        const failed = smtpFailure(err);
        if (!failed.retryable) await record(cause, failed.reason);
        return failed;
      }
      await record(cause);
      return { ok: true, receipt: { messageId: messageIdOf(cause) } };
    },
    async gaveUp(_effect, cause, reason) {
      await record(cause, reason);
    },
  };
}

const messageIdOf = (cause: RecordedEvent) => `<${cause.id}@invitations.cloud.invalid>`;
