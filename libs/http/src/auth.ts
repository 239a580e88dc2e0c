/** Authentication port + the route-level authorization rules (DECISIONS §3). */
import { forbidden, unauthorized } from './errors';
import { isProjectPrincipal, type Principal, type ProjectPrincipal } from '../../application/src/actor';
import type { ProjectRole } from '../../domain/identity/events';
import { isPermitted } from '../../domain/identity/roles';
import { dataScope, type Mode } from '../../domain/shared/scope';

export type { ProjectRole, Mode };
export {
  isProjectPrincipal,
  principalActor,
  principalDataScope,
  principalMode,
  principalProjectId,
  type Principal,
  type ProjectKeyPrincipal,
  type ProjectMemberPrincipal,
  type ProjectPrincipal,
} from '../../application/src/actor';

/** The mode a project key's prefix (or the key itself) says: `svc_test_…` is test, anything else live. */
export const modeOfKey = (keyOrPrefix: string): Mode => (keyOrPrefix.startsWith('svc_test_') ? 'test' : 'live');

export interface Credential { apiKey?: string; bearer?: string }

/** Implemented by the identity module; the HTTP lib never sees how keys are stored. */
export interface Authenticator {
  /** Resolves a credential to a principal, or null when it is unknown, revoked or expired. */
  authenticate(credential: Credential, req: unknown): Promise<Principal | null>;
}

export const AUTHENTICATOR = Symbol('AUTHENTICATOR');

/**
 * Reads `X-Service-API-Key` or `Authorization: Bearer <token>` (an API key or an identity-provider JWT;
 * the authenticator tells them apart by form); undefined when none is sent.
 */
export function readCredential(headers: Record<string, string | string[] | undefined>): Credential | undefined {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const apiKey = one(headers['x-service-api-key'])?.trim();
  const authz = one(headers.authorization)?.trim();
  const m = authz ? /^Bearer\s+(\S+)$/i.exec(authz) : null;
  if (!apiKey && !authz) return undefined;
  return { apiKey: apiKey || undefined, bearer: m ? m[1] : undefined };
}

/**
 * Whether a project principal holds the permission a route declares: its custom role's list, else its
 * built-in role's (libs/domain/identity/roles.ts, the one place roles are defined).
 */
export const isAllowed = (p: ProjectPrincipal, permission: string | undefined): boolean => isPermitted(p, permission);

/** Who may call a route: a project credential, a platform admin, or anyone. */
export type RouteAuth = 'project' | 'admin' | 'none';

/** The one permission check of every route: throws 401/403 when the principal may not call it. */
export function authorize(route: { auth: RouteAuth; permission?: string }, _method: string, principal: Principal | null, credentialSent: boolean): void {
  if (route.auth === 'none') return;
  if (!principal) throw credentialSent ? unauthorized('Invalid credentials') : unauthorized('Missing credentials');
  if (route.auth === 'admin') {
    if (principal.kind !== 'platform-admin') throw forbidden('This route requires a platform-admin credential');
    return;
  }
  if (!isProjectPrincipal(principal)) throw forbidden('This route requires a project credential');
  if (principal.suspended) throw forbidden('This project is suspended; contact the platform administrator');
  if (!isAllowed(principal, route.permission)) {
    const who = principal.permissions ? 'This custom role' : `Role ${principal.role}`;
    throw forbidden(`${who} lacks the permission ${route.permission ?? '*:*'}`);
  }
}

/** The scope of rate limits and idempotency records: the principal's data scope (a test key's retries never meet a live key's). */
export const principalScope = (p: Principal): string => (isProjectPrincipal(p) ? `project:${dataScope(p.projectId, p.mode)}` : `admin:${p.keyId}`);

