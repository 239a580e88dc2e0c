import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyHasher } from '../../../libs/runtime/src/key-hasher';
import type { SessionHolder } from '../../../usecases/gateway/keys';

export const SESSION_COOKIE = 'gw_session';
export const SESSION_TTL_S = 12 * 3600;

/**
 * A session is a signed cookie (HMAC with the deployment's key pepper, under its own label), so any
 * gateway process of the deployment reads it and none stores it: `<payload>.<signature>`, base64url.
 */
export class SessionCodec {
  constructor(
    private readonly hasher: KeyHasher,
    private readonly now: () => number,
  ) {}

  private sign(payload: string): string {
    return this.hasher.hash(`gateway-session\u0000${payload}`);
  }

  encode(holder: SessionHolder): string {
    const payload = Buffer.from(JSON.stringify({ ...holder, sessionId: randomBytes(16).toString('hex'), exp: Math.floor(this.now() / 1000) + SESSION_TTL_S })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(token: string | undefined): SessionHolder | null {
    if (!token || token.length > 4096) return null;
    const [payload, sig, ...rest] = token.split('.');
    if (!payload || !sig || rest.length) return null;
    const want = Buffer.from(this.sign(payload));
    const got = Buffer.from(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
    try {
      const s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SessionHolder & { exp: number };
      if (typeof s.exp !== 'number' || s.exp * 1000 <= this.now()) return null;
      return { projectId: s.projectId, scope: s.scope, mode: s.mode, actor: s.actor, ...(typeof s.sessionId === 'string' ? { sessionId: s.sessionId } : {}) };
    } catch {
      return null;
    }
  }

  /** The cookie that makes the browser forget the session (DELETE /api/session). */
  clearCookie(): string {
    return `${SESSION_COOKIE}=; Path=/api; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
  }

  cookie(token: string): string {
    return `${SESSION_COOKIE}=${token}; Path=/api; Max-Age=${SESSION_TTL_S}; HttpOnly; Secure; SameSite=Strict`;
  }
}

/** The session cookie's value, if the request carries one (never read as an organization key). */
export function sessionCookie(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === SESSION_COOKIE) return value.join('=');
  }
  return undefined;
}
