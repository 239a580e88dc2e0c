import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { isProjectPrincipal, principalActor, principalDataScope, principalMode, type Principal } from '../../../../libs/http/src/auth';

/** Event metadata for a command issued by an HTTP request. */
export function commandContext(req: FastifyRequest, principal: Principal | null): CommandContext {
  const idem = req.headers['idempotency-key'];
  // A re-run to answer a committed write (DECISIONS 5) acts as the request that wrote: its ids and its events are that request's.
  const writer = req.idempotency?.recovering?.requestId;
  return {
    metadata: {
      // the data scope (DECISIONS 21): `<project>` in live mode, `<project>:test` in test mode
      projectId: principalDataScope(principal),
      // apikey:<keyId>, member:<sub> (a signed-in member), admin:<keyId> or anonymous
      actor: principalActor(principal),
      // live or test (DECISIONS 21): the key's prefix; members and platform admins act in live mode
      mode: principalMode(principal),
      requestId: writer ?? req.id,
      correlationId: writer ?? req.id,
      idempotencyKey: typeof idem === 'string' ? idem : undefined,
      ...(writer ? { recovering: true } : {}),
    },
  };
}

/** The caller as a grantee (its role, or its custom role's permissions), for the never-above-your-own rules. */
export const granteeOf = (p: Principal) => (isProjectPrincipal(p) ? { role: p.role, permissions: p.permissions } : undefined);
