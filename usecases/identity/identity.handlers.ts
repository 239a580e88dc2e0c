import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectIdentity, InjectPermissions, InjectPorts, type IdentityPort, type PermissionsPort } from '../inject-ports';
import { apiKeyDecider } from '../../libs/domain/identity/api-key.decider';
import { apiKeyStream, projectStream } from '../../libs/domain/identity/events';
import { projectDecider } from '../../libs/domain/identity/project.decider';
import { requestScopedId, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { PROJECT_ROLES, mayGrant, type Grantee } from '../../libs/domain/identity/roles';
import { roleGrantee } from './members.handlers';
import type { ProjectRole } from '../../libs/domain/identity/events';
import { forbidden, notFound } from '../../libs/application/src/errors';
import type { CataloguedPermission } from '../../libs/application/src/permissions';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { apiKeysProjection, type ApiKeyDoc } from '../../projections/api-keys/api-keys.projection';
import { projectsProjection, type ProjectDoc } from '../../projections/projects/projects.projection';
import { issueApiKey, type IssuedKey, type KeyInput } from './issue-api-key';
import { workspaceOf } from './workspaces';
import { releaseRole, releaseUnheld, reserveRole } from './role-holds';
import { reserveThenWrite } from '../reservations';
import type { PortsOf } from '../../libs/runtime/src/ports';

export class IssueApiKey extends Command<IssuedKey> {
  constructor(
    readonly input: KeyInput,
    readonly context: CommandContext,
    /** The creating credential: the key's role is never above its own (DECISIONS 15). */
    readonly issuer?: Grantee,
  ) {
    super();
  }
}

export class RevokeApiKey extends Command<void> {
  constructor(
    readonly projectId: string,
    readonly keyId: string,
    readonly context: CommandContext,
    /** The revoking credential: it may revoke only keys whose role it could have issued. */
    readonly revoker?: Grantee,
  ) {
    super();
  }
}

/**
 * Operator extension: a project and its first (owner, test-mode) key, in the workspace `workspaceId`
 * (an existing project's; unknown: 404) or, without it, in a workspace of its own whose id is the
 * project's (DECISIONS 15).
 */
export class CreateProject extends Command<{ project: ProjectDoc; key: IssuedKey }> {
  constructor(
    readonly name: string,
    readonly context: CommandContext,
    readonly workspaceId?: string,
  ) {
    super();
  }
}

export class ListApiKeys extends Query<{ items: ApiKeyDoc[]; total: number }> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ revoked?: 'true' | 'false' }>,
  ) {
    super();
  }
}

/** The permission catalogue (DECISIONS 15), generated from the route declarations. */
export class ListPermissions extends Query<{ items: CataloguedPermission[]; total: number }> {
  constructor(readonly list: ListQuery<{ resource?: string; role?: ProjectRole }>) {
    super();
  }
}

export class ListProjects extends Query<{ items: ProjectDoc[]; total: number }> {
  constructor(readonly list: ListQuery) {
    super();
  }
}

/**
 * 403 unless `who` may hold a key of `role`, or of the custom role `customRoleId` (only with
 * permissions it holds itself): an admin neither creates nor revokes owner keys. An unknown custom
 * role of the project: 400.
 */
async function mustOutrank(ports: PortsOf<'projections'>, permissions: PermissionsPort, projectId: string | null, who: Grantee, role: ProjectRole, customRoleId: string | null | undefined, verb: 'create' | 'revoke'): Promise<void> {
  const target = customRoleId ? await roleGrantee(ports, projectId ?? '', customRoleId, PROJECT_ROLES) : { role };
  if (mayGrant(who, target, permissions().map((p) => p.permission))) return;
  throw forbidden(`A ${who.permissions ? 'custom-role' : who.role} credential may not ${verb} a key with role ${customRoleId ?? role}`);
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>,
    @InjectIdentity() private readonly identity: IdentityPort,
    @InjectPermissions() private readonly permissions: PermissionsPort,
  ) {}

  async execute({ input, context, issuer }: IssueApiKey): Promise<IssuedKey> {
    if (issuer) await mustOutrank(this.ports, this.permissions, input.projectId, issuer, input.role, input.customRoleId, 'create');
    else if (input.customRoleId) await roleGrantee(this.ports, input.projectId ?? '', input.customRoleId, PROJECT_ROLES);
    if (!input.customRoleId || !input.projectId) return issueApiKey(this.ports, this.identity.hasher, input, context);
    // A custom role is reserved for the key on the role's stream first (a delete then sees it), and
    // the key's issue names that grant; a refused issue gives it back (a crash leaves it to the delete).
    const keyId = requestScopedId(context, 'api-key');
    const { projectId, customRoleId } = input;
    const holder = { kind: 'api-key', id: keyId } as const;
    return reserveThenWrite(
      () => reserveRole(this.ports, projectId, customRoleId, holder, PROJECT_ROLES, context),
      (roleGrant) => issueApiKey(this.ports, this.identity.hasher, { ...input, keyId, roleGrant }, context),
      (roleGrant) => releaseUnheld(this.ports, projectId, customRoleId, roleGrant, holder, context),
    );
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'events' | 'logger' | 'now' | 'projections' | 'waitForProjections'>,
    @InjectPermissions() private readonly permissions: PermissionsPort,
  ) {}

  async execute({ projectId, keyId, context, revoker }: RevokeApiKey): Promise<void> {
    const doc = await (await this.ports.projections.collection(apiKeysProjection)).get(keyId);
    if (!doc || doc.projectId !== projectId || doc.scope !== 'project' || doc.revoked) throw notFound('API key not found');
    if (revoker) await mustOutrank(this.ports, this.permissions, projectId, revoker, doc.role, doc.customRoleId, 'revoke');
    const result = await handleCommand(this.ports.events, apiKeyStream(keyId), apiKeyDecider, { type: 'RevokeApiKey', keyId, projectId, now: this.ports.now() }, context);
    // The key's custom role (if any) is held no more.
    if (result.state.status === 'revoked' && result.state.roleGrant) await releaseRole(this.ports, projectId, result.state.roleGrant, context);
    await this.ports.waitForProjections(result.position, [apiKeysProjection.name]);
  }
}

@CommandHandler(CreateProject)
export class CreateProjectHandler implements ICommandHandler<CreateProject> {
  constructor(
    @InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>,
    @InjectIdentity() private readonly identity: IdentityPort,
  ) {}

  async execute({ name, context, workspaceId }: CreateProject): Promise<{ project: ProjectDoc; key: IssuedKey }> {
    // A workspace's id is its founding project's, and workspaces are never removed (projects are
    // never deleted; a closed one still holds its workspace), so the check cannot be outdated by the append.
    if (workspaceId !== undefined && (await workspaceOf(this.ports, workspaceId)) !== workspaceId) throw notFound(`Workspace ${workspaceId} not found`);
    const projectId = requestScopedId(context, 'project');
    const created = await handleCommand(this.ports.events, projectStream(projectId), projectDecider, { type: 'CreateProject', projectId, name, workspaceId, now: this.ports.now() }, context, { newStream: true });
    const key = await issueApiKey(this.ports, this.identity.hasher, { projectId, name: 'default', role: 'owner', expiresAt: null, mode: 'test' }, context);
    await this.ports.waitForProjections(created.position, [projectsProjection.name]);
    return { project: (await this.ports.readBack(projectsProjection, projectStream(projectId), projectId, created.position))!, key };
  }
}

@QueryHandler(ListApiKeys)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeys> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list }: ListApiKeys) {
    const filter: Record<string, string | boolean> = { projectId, scope: 'project' };
    if (list.filters.revoked) filter.revoked = list.filters.revoked === 'true';
    return (await this.ports.projections.collection(apiKeysProjection)).find({ filter, ...pageOf(list) });
  }
}

@QueryHandler(ListPermissions)
export class ListPermissionsHandler implements IQueryHandler<ListPermissions> {
  constructor(@InjectPermissions() private readonly permissions: PermissionsPort) {}

  async execute({ list }: ListPermissions) {
    const { resource, role } = list.filters;
    const matching = this.permissions().filter((p) => (!resource || p.resource === resource) && (!role || p.roles.includes(role)));
    const field = (p: CataloguedPermission, f: string) => String(p[f as 'permission' | 'resource' | 'action']);
    matching.sort((a, b) => {
      for (const { field: f, direction } of [...list.sort, { field: 'permission', direction: 1 as const }]) {
        const [x, y] = [field(a, f), field(b, f)];
        if (x !== y) return x < y ? -direction : direction;
      }
      return 0;
    });
    return { items: matching.slice(list.skip, list.skip + list.limit), total: matching.length };
  }
}

@QueryHandler(ListProjects)
export class ListProjectsHandler implements IQueryHandler<ListProjects> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ list }: ListProjects) {
    return (await this.ports.projections.collection(projectsProjection)).find({ ...pageOf(list) });
  }
}

export const IDENTITY_HANDLERS = [IssueApiKeyHandler, RevokeApiKeyHandler, CreateProjectHandler, ListApiKeysHandler, ListProjectsHandler, ListPermissionsHandler];
