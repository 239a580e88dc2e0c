import * as fs from 'node:fs';
import * as path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../../../libs/eventstore/src/aggregate-stream';
import { WrongExpectedRevisionError } from '../../../../libs/eventstore/src/event-store.port';
import { apiKeyDecider } from '../../../../libs/domain/identity/api-key.decider';
import { projectDecider, type ProjectState } from '../../../../libs/domain/identity/project.decider';
import { apiKeyStream, projectStream } from '../../../../libs/domain/identity/events';
import { DomainError } from '../../../../libs/domain/shared/domain-error';
import { modeOfKey, type Principal, type Credential, type Authenticator } from '../../../../libs/http/src/auth';
import { apiKeysProjection, type ApiKeyDoc } from '../../../../projections/api-keys/api-keys.projection';
import { projectsProjection } from '../../../../projections/projects/projects.projection';
import { ProjectionCache } from '../../../../libs/runtime/src/projection-cache';
import { ADMIN_KEY_PATTERN, KeyHasher, PROJECT_KEY_PATTERN } from '../../../../usecases/identity/api-key-secrets';
import { JwtVerifier, looksLikeJwt, type JwtIdentity } from './jwt-verifier';
import { emailKey } from '../../../../libs/domain/identity/membership';
import { PROJECT_ROLES, WORKSPACE_ROLE_AS_PROJECT_ROLE, eitherGrant, type Grantee } from '../../../../libs/domain/identity/roles';
import { workspaceOf } from '../../../../usecases/identity/workspaces';
import { permissionCatalogue } from '../../../../libs/http/src/route';
import type { ProjectRole } from '../../../../libs/domain/identity/events';
import { membersProjection, type MemberDoc } from '../../../../projections/members/members.projection';
import { customRolesProjection, type CustomRoleDoc } from '../../../../projections/custom-roles/custom-roles.projection';
import { issueApiKey, type IssuedKey, type KeyInput } from '../../../../usecases/identity/issue-api-key';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

const USE_RECORD_INTERVAL_MS = 60_000;

type ProjectStanding = { status: ProjectState['status'] };

/** Projects, project API keys and platform-admin keys (spec 2.5, 4.11; DECISIONS 3). */
export class IdentityService implements Authenticator {
  readonly hasher: KeyHasher;
  /** Identity-provider JWTs; null when JWT_ISSUER is not configured. */
  private readonly jwt: JwtVerifier | null;

  constructor(private readonly ports: PortsOf<'clock' | 'config' | 'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {
    this.hasher = KeyHasher.fromConfig(ports.config.dataDir, ports.config.apiKeyPepper);
    this.jwt = ports.config.jwt ? new JwtVerifier(ports.config.jwt, (reason) => ports.logger.debug({ reason }, 'bearer JWT rejected')) : null;
  }

  private now(): string {
    return this.ports.now();
  }

  /** Issues a key outside a request (first-start bootstrap, benches); requests go through IssueApiKey. */
  async issueKey(input: KeyInput, ctx: CommandContext): Promise<IssuedKey & { key: string }> {
    const issued = await issueApiKey(this.ports, this.hasher, input, ctx);
    // Only a request run again after a crash gets no secret, and this is no request.
    if (issued.key === null) throw new Error('a key issued outside a request has its secret');
    return { ...issued, key: issued.key };
  }

  keys() {
    return this.ports.projections.collection(apiKeysProjection);
  }

  projects() {
    return this.ports.projections.collection(projectsProjection);
  }

  /**
   * `X-Service-API-Key` wins when both headers are sent. A bearer token is an API key when it has a
   * key's form, else a JWT when it has three base64url segments and JWT_ISSUER is configured; anything
   * else is unknown (401).
   */
  async authenticate(credential: Credential): Promise<Principal | null> {
    const key = credential.apiKey ?? credential.bearer;
    if (!key) return null;
    if (!credential.apiKey && this.jwt && looksLikeJwt(key)) return this.authenticateJwt(this.jwt, key);
    if (!(PROJECT_KEY_PATTERN.test(key) || ADMIN_KEY_PATTERN.test(key))) return null;
    // Every request authenticates: keys found are cached briefly and dropped when the api_keys model
    // changes (a revoke answers only after that; another API node sees it within the cache's second).
    const keyHash = this.hasher.hash(key);
    const doc = await ProjectionCache.for<ApiKeyDoc>(this.ports, 'api_keys', apiKeysProjection as never).get(keyHash, async () => (await this.keys()).findOne({ keyHash }));
    if (!doc || doc.revoked) return null;
    const now = this.ports.clock.now();
    if (doc.expiresAt && Date.parse(doc.expiresAt) <= now) return null;
    if (!doc.lastUsedAt || now - Date.parse(doc.lastUsedAt) >= USE_RECORD_INTERVAL_MS) this.recordUse(doc.id);
    if (doc.scope === 'platform-admin') return { kind: 'platform-admin', keyId: doc.id };
    const status = await this.projectStatus(doc.projectId!);
    if (status === 'closed') return null;
    const permissions = doc.customRoleId ? await this.customRolePermissions(doc.projectId!, doc.customRoleId) : undefined;
    if (permissions === null) return null;
    return { kind: 'project-key', projectId: doc.projectId!, keyId: doc.id, role: doc.role, mode: modeOfKey(doc.prefix), ...(permissions ? { permissions } : {}), ...(status === 'suspended' ? { suspended: true } : {}) };
  }

  /**
   * Whether project key `keyId` would still authenticate (not revoked, not expired, its project not
   * closed): what a WebSocket ticket it asked for is checked against when redeemed (DECISIONS 20).
   */
  async keyIsLive(keyId: string): Promise<boolean> {
    const doc = await (await this.keys()).get(keyId);
    if (!doc || doc.revoked || doc.scope === 'platform-admin' || !doc.projectId) return false;
    if (doc.expiresAt && Date.parse(doc.expiresAt) <= this.ports.clock.now()) return false;
    return (await this.projectStatus(doc.projectId)) !== 'closed';
  }

  /** A project member signed in through the identity provider; the project must exist. No lastUsedAt (keys only). */
  private async authenticateJwt(verifier: JwtVerifier, token: string): Promise<Principal | null> {
    const identity = await verifier.verify(token);
    if (!identity) return null;
    const status = await this.projectStatus(identity.projectId);
    if (status === 'none' || status === 'closed') {
      this.ports.logger.debug({ reason: status === 'none' ? 'unknown project' : 'closed project' }, 'bearer JWT rejected');
      return null;
    }
    const registered = await this.registeredMember(identity);
    if (registered === 'unknown') {
      this.ports.logger.debug({ reason: 'not a member of the project' }, 'bearer JWT rejected');
      return null;
    }
    const grant = registered ?? { role: identity.role };
    return { kind: 'project-member', projectId: identity.projectId, memberId: identity.memberId, ...(identity.email ? { email: identity.email } : {}), mode: 'live', role: grant.role, ...(grant.permissions ? { permissions: [...grant.permissions] } : {}), ...(status === 'suspended' ? { suspended: true } : {}) };
  }

  /**
   * The membership registries decide who a JWT's holder is (DECISIONS 15): the project's own and its
   * workspace's. In each, the active member whose email is the token's `email` claim
   * (case-insensitively), or whose id is its `sub`, acts with the registry's role (a custom role: its
   * permission list); one in both acts with what either grants (`eitherGrant`). A project whose
   * registries have never had a member keeps judging by the token's role claim (`null`); once they
   * have, a token naming no active member is refused (`'unknown'`: 401), so a removed member is out at once.
   */
  private async registeredMember(identity: JwtIdentity): Promise<Grantee | null | 'unknown'> {
    const { projectId } = identity;
    const workspaceId = (await workspaceOf(this.ports, projectId)) ?? projectId;
    type Found = { docs: MemberDoc[]; registry: boolean };
    const cache = ProjectionCache.for<Found>(this.ports, 'members', membersProjection as never);
    const found = await cache.get(`${projectId}\u0000${identity.email ?? ''}\u0000${identity.memberId}`, async () => {
      const members = await this.ports.projections.collection(membersProjection);
      const registries = [{ projectId, scope: 'project' as const }, { projectId: workspaceId, scope: 'workspace' as const }];
      const docs: MemberDoc[] = [];
      for (const registry of registries) {
        const byEmail = identity.email ? await members.findOne({ ...registry, emailKey: emailKey(identity.email), status: 'active' }) : null;
        const bySub = byEmail ? null : await members.get(identity.memberId);
        const doc = byEmail ?? (bySub && bySub.projectId === registry.projectId && bySub.scope === registry.scope && bySub.status === 'active' ? bySub : null);
        if (doc) docs.push(doc);
      }
      let registry = docs.length > 0;
      for (const r of registries) registry ||= !!(await members.findOne(r));
      return { docs, registry };
    });
    if (!found?.registry) return null;
    const grants: Grantee[] = [];
    for (const doc of found.docs) {
      const grant = await this.memberGrant(doc);
      if (grant) grants.push(grant);
    }
    if (grants.length === 0) return 'unknown';
    return grants.length === 1 ? grants[0] : eitherGrant(grants, permissionCatalogue().map((p) => p.permission));
  }

  /** What a member's role grants; a custom role is its registry's (a workspace's: its founding project's). Null: no such role now. */
  private async memberGrant(doc: MemberDoc): Promise<Grantee | null> {
    const role = doc.role;
    if ((PROJECT_ROLES as readonly string[]).includes(role)) return { role: role as ProjectRole };
    if (role === 'member') return { role: WORKSPACE_ROLE_AS_PROJECT_ROLE.member };
    const permissions = await this.customRolePermissions(doc.projectId, role);
    return permissions ? { role: 'viewer', permissions } : null;
  }

  /** A custom role's permission list (cached until the roles model changes), or null when the project has no such role. */
  private async customRolePermissions(projectId: string, roleId: string): Promise<string[] | null> {
    const cache = ProjectionCache.for<CustomRoleDoc>(this.ports, 'custom_roles', customRolesProjection as never);
    const role = await cache.get(roleId, async () => (await this.ports.projections.collection(customRolesProjection)).get(roleId));
    return role && role.projectId === projectId ? role.permissions : null;
  }

  /**
   * The project's standing (DECISIONS 18), the one place every project credential's request reads it:
   * the projects model through a cache dropped when this process's projector changes it (a suspend
   * answers only after that, so the next request sees it) and after 1 s in any case (another API
   * node); a project the model has not caught up with is folded from its stream.
   */
  async projectStatus(projectId: string): Promise<ProjectStanding['status']> {
    const standing = await ProjectionCache.for<ProjectStanding>(this.ports, 'project-standing', projectsProjection as never).get(projectId, async () => {
      const doc = await (await this.projects()).get(projectId);
      if (doc) return { status: doc.status };
      const { state } = await aggregateStream(this.ports.events, projectStream(projectId), projectDecider);
      return state.status === 'none' ? null : { status: state.status };
    });
    return standing?.status ?? 'none';
  }

  /** Coarse lastUsedAt (at most once a minute per key), off the request's critical path. */
  private readonly usesRecorded = new Map<string, number>();

  private recordUse(keyId: string): void {
    // The cached key document keeps its old lastUsedAt until the model catches up: ask once per interval.
    const now = this.ports.clock.now();
    const last = this.usesRecorded.get(keyId);
    if (last !== undefined && now - last < USE_RECORD_INTERVAL_MS) return;
    if (this.usesRecorded.size >= 10_000) this.usesRecorded.clear();
    this.usesRecorded.set(keyId, now);
    handleCommand(
      this.ports.events,
      apiKeyStream(keyId),
      apiKeyDecider,
      { type: 'RecordApiKeyUse', keyId, now: this.now(), minIntervalMs: USE_RECORD_INTERVAL_MS },
      { metadata: { actor: `apikey:${keyId}` } },
    ).catch((err) => {
      if (!(err instanceof DomainError)) this.ports.logger.warn({ err: String(err), keyId }, 'could not record API key use');
    });
  }

  /**
   * First start: creates a project, a `svc_test_` key for it and a platform-admin key, and writes
   * them to `<dataDir>/bootstrap.json` (0600). The `platform-bootstrap` stream makes this happen once
   * per event store even when several processes start together.
   */
  async bootstrap(): Promise<{ file: string; created: boolean }> {
    const file = path.join(this.ports.config.dataDir, 'bootstrap.json');
    const ctx: CommandContext = { metadata: { actor: 'system:bootstrap' } };
    const projectId = uuidv7();
    try {
      await this.ports.events.append(
        'platform-bootstrap',
        [{ id: uuidv7(), type: 'platform.Bootstrapped.v1', data: { projectId, at: this.now() }, metadata: { schemaVersion: 1, actor: 'system:bootstrap' } }],
        { expectedRevision: 'no_stream' },
      );
    } catch (err) {
      if (err instanceof WrongExpectedRevisionError) return { file, created: false };
      throw err;
    }
    await handleCommand(this.ports.events, projectStream(projectId), projectDecider, { type: 'CreateProject', projectId, name: 'default', now: this.now() }, ctx);
    const apiKey = await this.issueKey({ projectId, name: 'bootstrap', role: 'owner', expiresAt: null, mode: 'test' }, ctx);
    const adminKey = await this.issueKey({ projectId: null, name: 'platform-admin', role: 'owner', expiresAt: null, mode: 'admin' }, ctx);
    fs.writeFileSync(file, JSON.stringify({ projectId, apiKey: apiKey.key, adminKey: adminKey.key }, null, 2) + '\n', { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    return { file, created: true };
  }
}

