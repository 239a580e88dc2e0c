/** Authentication port + the route-level authorization rules (DECISIONS §3). */
import { forbidden, unauthorized } from './errors';

export type ProjectRole = 'owner' | 'admin' | 'developer' | 'viewer';

/** A project API key (`svc_live_…` / `svc_test_…`). */
export interface ProjectKeyPrincipal {
  kind: 'project-key';
  projectId: string;
  keyId: string;
  role: ProjectRole;
  /** custom role: `resource:action` list */
  permissions?: string[];
}

/** A project member signed in through the identity provider (a verified bearer JWT; DECISIONS §3). */
export interface ProjectMemberPrincipal {
  kind: 'project-member';
  projectId: string;
  /** The JWT `sub`. */
  memberId: string;
  role: ProjectRole;
  /** custom role: `resource:action` list */
  permissions?: string[];
}

/** Either kind of project credential: both are scoped to one project and act with a role. */
export type ProjectPrincipal = ProjectKeyPrincipal | ProjectMemberPrincipal;

export type Principal = ProjectPrincipal | { kind: 'platform-admin'; keyId: string };

/** Whether the principal acts inside one project (an API key or a member); use this, not `kind === 'project-key'`. */
export const isProjectPrincipal = (p: Principal | null | undefined): p is ProjectPrincipal => p?.kind === 'project-key' || p?.kind === 'project-member';

/** The project a principal acts in, or undefined for platform admins and anonymous requests. */
export const principalProjectId = (p: Principal | null | undefined): string | undefined => (isProjectPrincipal(p) ? p.projectId : undefined);

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

/** Resources a developer may read but not manage. */
export const DEVELOPER_RESTRICTED = new Set([
  'api-keys', 'members', 'roles', 'invitations', 'billing', 'wallets', 'payments', 'invoices', 'providers', 'provider-keys',
]);

const READ_METHODS = new Set(['GET', 'HEAD']);

/** Whether a project principal may call a route with this method and permission. */
export function isAllowed(p: ProjectPrincipal, method: string, permission?: string): boolean {
  const [resource, action = ''] = (permission ?? '').split(':');
  const isRead = READ_METHODS.has(method) && (!permission || action === 'read');
  if (p.permissions) {
    if (!permission) return isRead || p.permissions.includes('*');
    return p.permissions.some((g) => g === '*' || g === permission || g === `${resource}:*`);
  }
  switch (p.role) {
    case 'owner':
    case 'admin':
      return true;
    case 'developer':
      return isRead || !DEVELOPER_RESTRICTED.has(resource);
    case 'viewer':
      return isRead;
  }
}

/** Throws 401/403 when the principal may not call the route. */
/** Who may call a route: a project credential, a platform admin, or anyone. */
export type RouteAuth = 'project' | 'admin' | 'none';

export function authorize(route: { auth: RouteAuth; permission?: string }, method: string, principal: Principal | null, credentialSent: boolean): void {
  if (route.auth === 'none') return;
  if (!principal) throw credentialSent ? unauthorized('Invalid credentials') : unauthorized('Missing credentials');
  if (route.auth === 'admin') {
    if (principal.kind !== 'platform-admin') throw forbidden('This route requires a platform-admin credential');
    return;
  }
  if (!isProjectPrincipal(principal)) throw forbidden('This route requires a project credential');
  if (!isAllowed(principal, method, route.permission)) throw forbidden(`Role ${principal.role} may not ${route.permission ?? method}`);
}

/** Project scope used by rate limits and idempotency. */
export const principalScope = (p: Principal): string => (isProjectPrincipal(p) ? `project:${p.projectId}` : `admin:${p.keyId}`);

