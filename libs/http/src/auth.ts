/** Authentication port + the route-level authorization rules (DECISIONS §3). */
import { forbidden, unauthorized } from './errors';
import type { RegisteredRoute } from './route';

export type ProjectRole = 'owner' | 'admin' | 'developer' | 'viewer';

export type Principal =
  | { kind: 'project-key'; projectId: string; keyId: string; role: ProjectRole; /** custom role: `resource:action` list */ permissions?: string[] }
  | { kind: 'platform-admin'; keyId: string };

export interface Credential { apiKey?: string; bearer?: string }

/** Implemented by the identity module; the HTTP lib never sees how keys are stored. */
export interface Authenticator {
  /** Resolves a credential to a principal, or null when it is unknown, revoked or expired. */
  authenticate(credential: Credential, req: unknown): Promise<Principal | null>;
}

export const AUTHENTICATOR = Symbol('AUTHENTICATOR');

/** Reads `X-Service-API-Key` or `Authorization: Bearer <token>`; undefined when none is sent. */
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
export function isAllowed(p: Extract<Principal, { kind: 'project-key' }>, method: string, permission?: string): boolean {
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
export function authorize(route: Pick<RegisteredRoute, 'auth' | 'permission'>, method: string, principal: Principal | null, credentialSent: boolean): void {
  if (route.auth === 'none') return;
  if (!principal) throw credentialSent ? unauthorized('Invalid credentials') : unauthorized('Missing credentials');
  if (route.auth === 'admin') {
    if (principal.kind !== 'platform-admin') throw forbidden('This route requires a platform-admin credential');
    return;
  }
  if (principal.kind !== 'project-key') throw forbidden('This route requires a project credential');
  if (!isAllowed(principal, method, route.permission)) throw forbidden(`Role ${principal.role} may not ${route.permission ?? method}`);
}

/** Project scope used by rate limits and idempotency. */
export const principalScope = (p: Principal): string => (p.kind === 'project-key' ? `project:${p.projectId}` : `admin:${p.keyId}`);

