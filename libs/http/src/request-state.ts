/** Per-request state this library keeps on the Fastify request. */
import type { Principal } from './auth';
import type { SparseFields } from './envelope';
import type { RateLimitState } from './rate-limit';
import type { ParsedRequest, RegisteredRoute } from './route';

export interface IdempotencyClaim { scope: string; key: string; token: string; fingerprint: string }

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
