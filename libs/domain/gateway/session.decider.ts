import type { Decider } from '../shared/domain-error';
import type { SessionRevoked } from './events';

export type RevokeSession = { type: 'RevokeSession'; sessionId: string; projectId: string; now: string };

/** A session is revoked once; revoking it again changes nothing. */
export const sessionDecider: Decider<RevokeSession, SessionRevoked, { revoked: boolean }> = {
  initialState: () => ({ revoked: false }),
  evolve: () => ({ revoked: true }),
  decide: (command, state) => (state.revoked ? [] : [{ type: 'gateway.SessionRevoked.v1', data: { sessionId: command.sessionId, projectId: command.projectId, revokedAt: command.now } }]),
};
