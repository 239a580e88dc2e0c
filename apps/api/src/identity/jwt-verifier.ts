import * as fs from 'node:fs';
import { createLocalJWKSet, createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { AppConfig } from '../../../../libs/config/src/config';
import type { ProjectRole } from '../../../../libs/http/src/auth';

export type JwtSettings = NonNullable<AppConfig['jwt']>;

/** What a verified token says: the project it selects, the member (`sub`) and the member's role. */
export interface JwtIdentity {
  projectId: string;
  memberId: string;
  role: ProjectRole;
  /** The `email` claim when it is a string (how a member of the registry is found). */
  email?: string;
}

/** Three base64url segments (header.payload.signature); API keys (`svc_…`, `adm_…`) never match. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
export const looksLikeJwt = (token: string): boolean => token.length <= 16_384 && JWT_SHAPE.test(token);

/** Only asymmetric signatures: an HS256 token (or `alg: none`) is rejected before any key is looked up. */
export const JWT_ALGORITHMS = ['RS256', 'ES256'];

/** The role a token without a role claim gets: the least privileged one. */
export const DEFAULT_JWT_ROLE: ProjectRole = 'viewer';
const ROLES: readonly ProjectRole[] = ['owner', 'admin', 'developer', 'viewer'];

const CLAIM_VALUE = /^[\x21-\x7e]{1,255}$/;

/**
 * JOSE error codes that mean "this token is not acceptable" (bad signature, claims, algorithm, shape,
 * unknown key). Anything else (JWKS endpoint unreachable, slow or malformed) is an outage, not a bad
 * token, and is thrown so the request gets 503 instead of a misleading 401.
 */
const TOKEN_REJECTIONS = new Set([
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_EXPIRED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

/** Raised when the key set cannot be obtained; carries no token material. */
export class JwksUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`JWT key set unavailable: ${reason}`);
  }
}

/**
 * Verifies identity-provider JWTs (DECISIONS 3): RS256/ES256 only, against the configured JWKS, with
 * `iss`, optional `aud`, `exp` (required) and `nbf` checked with the configured clock tolerance, and
 * `sub` plus the project claim required.
 */
export class JwtVerifier {
  private readonly keys: JWTVerifyGetKey;

  /** `onReject` hears why a token was refused (a JOSE code or a claim name; never token content), for debug logs. */
  constructor(
    private readonly settings: JwtSettings,
    private readonly onReject: (reason: string) => void = () => undefined,
  ) {
    if (settings.jwksUrl) {
      // Cached for 10 minutes; a token with an unknown `kid` triggers a refetch (at most every 30 s).
      this.keys = createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
    } else if (settings.jwksFile) {
      let jwks: unknown;
      try {
        jwks = JSON.parse(fs.readFileSync(settings.jwksFile, 'utf8'));
      } catch (err) {
        throw new Error(`JWT_JWKS_FILE ${settings.jwksFile}: cannot read a JSON key set (${(err as Error).message})`);
      }
      try {
        this.keys = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
      } catch (err) {
        throw new Error(`JWT_JWKS_FILE ${settings.jwksFile}: not a JSON Web Key Set (${(err as Error).message})`);
      }
    } else {
      throw new Error('JWT_ISSUER needs JWT_JWKS_URL or JWT_JWKS_FILE');
    }
  }

  /**
   * The identity a valid token carries, or null when the token fails any check (the caller answers
   * 401 without saying which). Throws JwksUnavailableError when the key set cannot be fetched.
   */
  async verify(token: string): Promise<JwtIdentity | null> {
    const s = this.settings;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.keys, {
        algorithms: JWT_ALGORITHMS,
        issuer: s.issuer,
        audience: s.audience,
        clockTolerance: s.clockToleranceSec,
        requiredClaims: ['sub', 'exp', s.projectClaim],
      }));
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && TOKEN_REJECTIONS.has(code)) {
        const claim = (err as { claim?: unknown }).claim;
        return this.reject(typeof claim === 'string' ? `${code} (${claim})` : code);
      }
      // Non-JOSE errors (a TypeError from a malformed key in the set, a socket error) and JWKS fetch
      // failures: describe the failure by its class and code only; never echo anything token-derived.
      const reason = err instanceof joseErrors.JOSEError ? `${err.code}: ${err.message}` : (err as { code?: string }).code ?? (err as Error).name ?? 'error';
      throw new JwksUnavailableError(reason);
    }
    const projectId = payload[s.projectClaim];
    const sub = payload.sub;
    if (typeof projectId !== 'string' || !CLAIM_VALUE.test(projectId)) return this.reject(`malformed ${s.projectClaim} claim`);
    if (typeof sub !== 'string' || !CLAIM_VALUE.test(sub)) return this.reject('malformed sub claim');
    // An address the identity provider says it has not verified never finds a member (anyone could claim it).
    const email = typeof payload.email === 'string' && payload.email.length <= 254 && payload.email_verified !== false ? { email: payload.email } : {};
    const rawRole = payload[s.roleClaim];
    if (rawRole === undefined) return { projectId, memberId: sub, role: DEFAULT_JWT_ROLE, ...email };
    // A role claim that is present but not one of ours is a malformed token, not a quiet downgrade.
    if (typeof rawRole !== 'string' || !(ROLES as readonly string[]).includes(rawRole)) return this.reject(`unknown ${s.roleClaim} claim value`);
    return { projectId, memberId: sub, role: rawRole as ProjectRole, ...email };
  }

  private reject(reason: string): null {
    this.onReject(reason);
    return null;
  }
}
