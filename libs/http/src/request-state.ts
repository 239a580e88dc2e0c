/** Per-request state this library keeps on the Fastify request. */
import type { Principal } from './auth';
import type { SparseFields } from './envelope';
import type { RateLimitState } from './rate-limit';
import type { ParsedRequest, RegisteredRoute } from './route';

import type { CommittedWrite } from './idempotency';

/**
 * The key this request holds: `token` for a first run; `recovering` for a re-run of the request whose
 * write committed but was never answered (its handler finds its own earlier events, DECISIONS 5).
 */
export type IdempotencyClaim = { scope: string; key: string; fingerprint: string } & ({ token: string; recovering?: undefined } | { token?: undefined; recovering: CommittedWrite });

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    credentialSent: boolean;
    apiRoute: RegisteredRoute | null;
    parsed: ParsedRequest | undefined;
    sparseFields: SparseFields | undefined;
    rateLimit: RateLimitState | undefined;
    idempotency: IdempotencyClaim | undefined;
    startedAt: bigint;
  }
  interface FastifyContextConfig {
    /** Routes registered outside `@ApiRoute` that need no credential (docs, openapi). */
    public?: boolean;
  }
}

export {};
