/**
 * Who acts (DECISIONS §3, 21): a project API key, a project member signed in through the identity
 * provider, or a platform admin. Use cases take it as their actor whatever the transport that
 * authenticated it (HTTP, the gateway's session, the event streams' tickets, the CLI); the HTTP edge
 * resolves it once per request (libs/http/src/auth.ts).
 */
import type { ProjectRole } from '../../domain/identity/events';
import { dataScope, type Mode } from '../../domain/shared/scope';

export type { ProjectRole, Mode };

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
