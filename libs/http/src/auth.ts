/** Authentication port + the route-level authorization rules (DECISIONS §3). */
import { forbidden, unauthorized } from './errors';
import type { ProjectRole } from '../../domain/identity/events';
import { isPermitted } from '../../domain/identity/roles';
import { dataScope, type Mode } from '../../domain/shared/scope';

export type { ProjectRole, Mode };

/** The mode a project key's prefix (or the key itself) says: `svc_test_…` is test, anything else live. */
export const modeOfKey = (keyOrPrefix: string): Mode => (keyOrPrefix.startsWith('svc_test_') ? 'test' : 'live');

/** A project API key (`svc_live_…` / `svc_test_…`). */
export interface ProjectKeyPrincipal {
  kind: 'project-key';
  projectId: string;
  keyId: string;
  role: ProjectRole;
  /** From the key's prefix: `svc_test_` keys act in test mode (DECISIONS 21). */
  mode: Mode;
  /** custom role: `resource:action` list */
  permissions?: string[];
  /** The project is suspended by a platform admin (DECISIONS 18): every route answers 403. */
  suspended?: boolean;
}

/** A project member signed in through the identity provider (a verified bearer JWT; DECISIONS §3). */
export interface ProjectMemberPrincipal {
  kind: 'project-member';
  projectId: string;
  /** The JWT `sub`. */
  memberId: string;
  /** The token's `email` claim, when it carries one. */
  email?: string;
  role: ProjectRole;
  /** A signed-in member always acts in live mode (test mode is for test keys). */
  mode: 'live';
  /** custom role: `resource:action` list */
  permissions?: string[];
  /** The project is suspended by a platform admin (DECISIONS 18): every route answers 403. */
  suspended?: boolean;
}

/** Either kind of project credential: both are scoped to one project and act with a role. */
export type ProjectPrincipal = ProjectKeyPrincipal | ProjectMemberPrincipal;

export type Principal = ProjectPrincipal | { kind: 'platform-admin'; keyId: string };

/** Whether the principal acts inside one project (an API key or a member); use this, not `kind === 'project-key'`. */
export const isProjectPrincipal = (p: Principal | null | undefined): p is ProjectPrincipal => p?.kind === 'project-key' || p?.kind === 'project-member';

/** The project a principal acts in, or undefined for platform admins and anonymous requests. */
export const principalProjectId = (p: Principal | null | undefined): string | undefined => (isProjectPrincipal(p) ? p.projectId : undefined);

/** The mode a principal acts in: its key's for a project key, live for members and platform admins. */
export const principalMode = (p: Principal | null | undefined): Mode => (p?.kind === 'project-key' ? p.mode : 'live');

/**
 * The data scope a principal reads and writes (DECISIONS 21; libs/domain/shared/scope.ts): its project
 * in live mode, `<project>:test` in test mode. Resolved here, once, with the principal: every data
 * route, event and idempotency record takes its tenant from this.
 */
export const principalDataScope = (p: Principal | null | undefined): string | undefined => (isProjectPrincipal(p) ? dataScope(p.projectId, p.mode) : undefined);

/** The `actor` written into event metadata: `apikey:<id>`, `member:<sub>`, `admin:<id>` or `anonymous`. */
export function principalActor(p: Principal | null | undefined): string {
  if (!p) return 'anonymous';
  switch (p.kind) {
    case 'project-key':
      return `apikey:${p.keyId}`;
    case 'project-member':
      return `member:${p.memberId}`;
    case 'platform-admin':
      return `admin:${p.keyId}`;
  }
}

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

