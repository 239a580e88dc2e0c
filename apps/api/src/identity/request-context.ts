import type { FastifyRequest } from 'fastify';
import type { CommandContext } from '../../../../libs/eventstore/src/handle-command';
import type { Principal } from '../../../../libs/http/src/auth';

/** Event metadata for a command issued by an HTTP request. */
export function commandContext(req: FastifyRequest, principal: Principal | null): CommandContext {
  const idem = req.headers['idempotency-key'];
  return {
    metadata: {
      projectId: principal?.kind === 'project-key' ? principal.projectId : undefined,
      actor: principal ? `${principal.kind === 'project-key' ? 'apikey' : 'admin'}:${principal.keyId}` : 'anonymous',
      requestId: req.id,
      correlationId: req.id,
      idempotencyKey: typeof idem === 'string' ? idem : undefined,
    },
  };
}
