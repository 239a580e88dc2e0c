import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { planRole, serverDecider, type ServerRequest } from '../../libs/domain/servers/server.decider';
import { serverStream, type ServerPowerAction, type ServerSpecData, type Tag } from '../../libs/domain/servers/server.events';
import { backupDecider } from '../../libs/domain/servers/backup.decider';
import { backupStream, type BackupSource } from '../../libs/domain/servers/backup.events';
import { requestScopedId, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { badRequest, invalidState, notFound } from '../../libs/application/src/errors';
import { pageOf, type ListPage } from '../../libs/application/src/views';
import type { Filter } from '../../libs/readstore/src/read-store.port';
import { backupsProjection, type BackupDoc } from '../../projections/backups/backups.projection';
import { instancesProjection } from '../../projections/instances/instances.projection';
import { serversProjection, type ServerDoc } from '../../projections/servers/servers.projection';
import { sshKeysProjection } from '../../projections/ssh-keys/ssh-keys.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { requireProjectProvider } from '../providers/project-provider';
import { ownDoc, requestedBy, requestWithItsJob, settleWithJob, written } from '../jobs/job-writes';
import type { PortsOf } from '../../libs/runtime/src/ports';

type Found<D> = { items: D[]; total: number };
type Accepted = { doc: ServerDoc; jobId: string };

/** What a GET after a server write reads. */
const SERVER_MODELS = [serversProjection.name];

export type CreateServerInput = ServerRequest & { site: string; plan: string; operatingSystem: string; provider?: string };

export class CreateServer extends Command<Accepted> {
  constructor(readonly projectId: string, readonly input: CreateServerInput, readonly ctx: CommandContext) {
    super();
  }
}
export class RequestServerPowerAction extends Command<Accepted> {
  constructor(readonly projectId: string, readonly id: string, readonly action: ServerPowerAction, readonly ctx: CommandContext) {
    super();
  }
}
/** Label, tags, lock; a changed plan starts a migration job (its id is returned). */
export class UpdateServer extends Command<{ doc: ServerDoc; jobId: string | null }> {
  constructor(readonly projectId: string, readonly id: string, readonly input: { label?: string; locked?: boolean; tags?: Tag[]; plan?: string }, readonly ctx: CommandContext) {
    super();
  }
}
export class DeleteServer extends Command<void> {
  constructor(readonly projectId: string, readonly id: string, readonly ctx: CommandContext) {
    super();
  }
}
export class CreateBackup extends Command<BackupDoc> {
  constructor(readonly projectId: string, readonly source: BackupSource, readonly resourceId: string, readonly name: string, readonly ctx: CommandContext) {
    super();
  }
}
export class DeleteBackup extends Command<void> {
  constructor(readonly projectId: string, readonly id: string, readonly ctx: CommandContext) {
    super();
  }
}
/** A new server from the backup's machine spec; the backup is archived first, so it restores once. */
export class RestoreBackup extends Command<Accepted> {
  constructor(readonly projectId: string, readonly id: string, readonly ctx: CommandContext) {
    super();
  }
}
export class GetServer extends Query<ServerDoc> {
  constructor(readonly projectId: string, readonly id: string) {
    super();
  }
}
export class ListServers extends Query<Found<ServerDoc>> {
  constructor(readonly projectId: string, readonly filters: { status?: string; site?: string; role?: string }, readonly page: ListPage) {
    super();
  }
}
export class GetBackup extends Query<BackupDoc> {
  constructor(readonly projectId: string, readonly id: string) {
    super();
  }
}
export class ListBackups extends Query<Found<BackupDoc>> {
  constructor(readonly projectId: string, readonly source: BackupSource, readonly resourceId: string, readonly page: ListPage) {
    super();
  }
}

const ownServer = (ports: PortsOf<'projections'>, projectId: string, id: string) => ownDoc(ports, serversProjection, projectId, id, 'Server');
const writtenServer = (ports: PortsOf<'readBack'>, projectId: string, id: string, position: number | null) => written(ports, serversProjection, serverStream(id), id, projectId, position, 'Server');

async function ownBackup(ports: PortsOf<'projections'>, projectId: string, id: string, ctx?: CommandContext): Promise<BackupDoc> {
  const doc = await (await ports.projections.collection(backupsProjection)).get(id);
  // A restore run again after a crash (DECISIONS 5) finds the backup its first run archived.
  if (!doc || doc.projectId !== projectId || (doc.status !== 'available' && !ctx?.metadata.recovering)) throw notFound('Backup not found');
  return doc;
}

/** The machine a backup route names: a server, or an instance through the instance aliases. */
async function backupSource(ports: PortsOf<'projections'>, projectId: string, source: BackupSource, id: string): Promise<{ spec: ServerSpecData; status: string }> {
  if (source === 'server') {
    const s = await ownServer(ports, projectId, id);
    const { id: _i, _position, status, locked: _l, jobId: _j, externalId: _e, ipv4: _v, errorMessage: _m, restoredFromBackup: _r, createdAt: _c, updatedAt: _u, deletedAt: _d, ...spec } = s;
    return { spec, status };
  }
  const inst = await ownDoc(ports, instancesProjection, projectId, id, 'Instance');
  const spec: ServerSpecData = {
    projectId,
    providerId: inst.providerId,
    providerKind: inst.providerKind,
    name: inst.name,
    hostname: inst.hostname,
    label: inst.name,
    role: inst.providerKind === 'provider_baremetal' ? 'BareMetal' : 'VirtualMachine',
    site: inst.site,
    region: inst.region,
    plan: inst.plan,
    operatingSystem: inst.operatingSystem ?? { slug: inst.image ?? 'provider-default', name: inst.image ?? 'Provider default image' },
    billing: 'hourly',
    sshKeys: inst.sshKeyId ? [inst.sshKeyId] : [],
    userData: null,
    tags: inst.tags,
    workerCount: inst.workerCount,
    spot: inst.spot,
    accelerators: inst.accelerators,
  };
  return { spec, status: inst.status };
}

/** A create's lookups (plan, provider, site, OS, SSH keys), shared with its cost estimate (DECISIONS 22). */
export async function serverLookups(ports: PortsOf<'events' | 'projections'>, projectId: string, input: CreateServerInput) {
  const { site, plan: planRef, operatingSystem, provider: providerRef, ...request } = input;
  const catalogs = new CatalogValidation(ports);
  const plan = await catalogs.resolvePlan(planRef);
  // A VM plan makes a VirtualMachine even without a role, so it needs a provider as well.
  if (!providerRef && (request.role ?? planRole(plan)) === 'VirtualMachine') {
    throw badRequest([{ detail: 'provider is required for VirtualMachine servers', source: { pointer: '/provider' } }]);
  }
  const provider = providerRef ? await requireProjectProvider(ports, projectId, providerRef, { requireEnabled: true }) : null;
  const region = await catalogs.resolveSite(site, plan.providerKind);
  const os = await catalogs.resolveOs(operatingSystem, plan);
  await requireSshKeys(ports, projectId, provider?.id ?? null, request.sshKeys ?? []);
  return { request, plan, provider, region, os };
}

/** Looks up the plan, the named provider, the site and the OS; the decider checks they fit together. */
@CommandHandler(CreateServer)
export class CreateServerHandler implements ICommandHandler<CreateServer> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'registry' | 'waitForProjections'>) {}

  async execute({ projectId, input, ctx }: CreateServer): Promise<Accepted> {
    const { request, plan, provider, region, os } = await serverLookups(this.ports, projectId, input);
    const [serverId, jobId] = [requestScopedId(ctx, 'server'), requestScopedId(ctx, 'job')];
    const catalog = { plan, provider: provider ? { id: provider.id, kind: provider.name } : null, region, os };
    // The request, its job and its Idempotency-Key record commit together (one append).
    const command = { type: 'RequestServer' as const, serverId, jobId, projectId, request, catalog, now: this.ports.now() };
    const written = await requestWithItsJob(this.ports, { streamId: serverStream(serverId), decider: serverDecider, command, newStream: true }, ctx);
    await settleWithJob(this.ports, written, jobId, SERVER_MODELS);
    return { doc: await writtenServer(this.ports, projectId, serverId, written[0].position), jobId };
  }
}

/** Keys must be this project's, and the named provider's when there is one (spec 4.7); 400 with a pointer to each unknown entry. */
async function requireSshKeys(ports: PortsOf<'projections'>, projectId: string, providerId: string | null, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = new Map((await (await ports.projections.collection(sshKeysProjection)).getMany(ids)).map((k) => [k.id, k]));
  const errors = ids.flatMap((id, i) => {
    const key = found.get(id);
    if (key && key.projectId === projectId && (providerId === null || key.providerId === providerId)) return [];
    return [{ detail: `SSH key ${id} not found${providerId ? ` for provider ${providerId}` : ''}`, source: { pointer: `/ssh_keys/${i}` } }];
  });
  if (errors.length > 0) throw badRequest(errors);
}

@CommandHandler(RequestServerPowerAction)
export class RequestServerPowerActionHandler implements ICommandHandler<RequestServerPowerAction> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'registry' | 'waitForProjections'>) {}

  async execute({ projectId, id, action, ctx }: RequestServerPowerAction): Promise<Accepted> {
    await ownServer(this.ports, projectId, id);
    const jobId = requestScopedId(ctx, 'job');
    const command = { type: 'RequestServerPowerAction' as const, jobId, action, now: this.ports.now(), requestedBy: requestedBy(ctx) };
    const written = await requestWithItsJob(this.ports, { streamId: serverStream(id), decider: serverDecider, command }, ctx);
    await settleWithJob(this.ports, written, jobId, SERVER_MODELS);
    return { doc: await writtenServer(this.ports, projectId, id, written[0].position), jobId };
  }
}

@CommandHandler(UpdateServer)
export class UpdateServerHandler implements ICommandHandler<UpdateServer> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'registry' | 'waitForProjections'>) {}

  async execute({ projectId, id, input, ctx }: UpdateServer) {
    await ownServer(this.ports, projectId, id);
    const plan = input.plan === undefined ? undefined : await new CatalogValidation(this.ports).resolvePlan(input.plan);
    const jobId = requestScopedId(ctx, 'job');
    const command = { type: 'UpdateServer' as const, jobId, label: input.label, locked: input.locked, tags: input.tags, plan, now: this.ports.now(), requestedBy: requestedBy(ctx) };
    // A changed plan's migration job commits with the update (no job part otherwise).
    const written = await requestWithItsJob(this.ports, { streamId: serverStream(id), decider: serverDecider, command }, ctx);
    const [r] = written;
    const migrating = r.events.some((e) => e.type === 'compute.ServerMigrationRequested.v1');
    if (migrating) await settleWithJob(this.ports, written, jobId, SERVER_MODELS);
    else await this.ports.waitForProjections(r.position, SERVER_MODELS);
    return { doc: await writtenServer(this.ports, projectId, id, r.position), jobId: migrating ? jobId : null };
  }
}

@CommandHandler(DeleteServer)
export class DeleteServerHandler implements ICommandHandler<DeleteServer> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'logger' | 'now' | 'projections' | 'registry' | 'waitForProjections'>) {}

  async execute({ projectId, id, ctx }: DeleteServer): Promise<void> {
    await ownServer(this.ports, projectId, id);
    const jobId = requestScopedId(ctx, 'job');
    const command = { type: 'RequestServerDeletion' as const, jobId, now: this.ports.now(), requestedBy: requestedBy(ctx) };
    await settleWithJob(this.ports, await requestWithItsJob(this.ports, { streamId: serverStream(id), decider: serverDecider, command }, ctx), jobId, SERVER_MODELS);
  }
}

@CommandHandler(CreateBackup)
export class CreateBackupHandler implements ICommandHandler<CreateBackup> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ projectId, source, resourceId, name, ctx }: CreateBackup): Promise<BackupDoc> {
    const { spec, status } = await backupSource(this.ports, projectId, source, resourceId);
    if (['deleting', 'terminating', 'terminated'].includes(status)) throw invalidState(`Cannot back up a ${source} in status ${status}`);
    const backupId = requestScopedId(ctx, 'backup');
    const backup = { backupId, projectId, name, source, resourceId, serverSpec: spec, createdAt: this.ports.now() };
    const r = await handleCommand(this.ports.events, backupStream(backupId), backupDecider, { type: 'CreateBackup', backup }, ctx);
    await this.ports.waitForProjections(r.position, ['backups']);
    return (await this.ports.readBack(backupsProjection, backupStream(backupId), backupId, r.position))!;
  }
}

@CommandHandler(DeleteBackup)
export class DeleteBackupHandler implements ICommandHandler<DeleteBackup> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'waitForProjections'>) {}

  async execute({ projectId, id, ctx }: DeleteBackup): Promise<void> {
    await ownBackup(this.ports, projectId, id);
    const r = await handleCommand(this.ports.events, backupStream(id), backupDecider, { type: 'ArchiveBackup', reason: 'deleted', now: this.ports.now() }, ctx);
    await this.ports.waitForProjections(r.position, ['backups']);
  }
}

@CommandHandler(RestoreBackup)
export class RestoreBackupHandler implements ICommandHandler<RestoreBackup> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'consistency' | 'events' | 'logger' | 'now' | 'projections' | 'readBack' | 'registry' | 'waitForProjections'>) {}

  async execute({ projectId, id, ctx }: RestoreBackup): Promise<Accepted> {
    const backup = await ownBackup(this.ports, projectId, id, ctx);
    const [serverId, jobId] = [requestScopedId(ctx, 'server'), requestScopedId(ctx, 'job')];
    const { events } = this.ports;
    const archived = await handleCommand(events, backupStream(id), backupDecider, { type: 'ArchiveBackup', reason: 'restored', restoredServerId: serverId, now: this.ports.now() }, ctx);
    const spec = { ...backup.serverSpec, projectId };
    const command = { type: 'RestoreServer' as const, serverId, jobId, spec, backupId: id, now: this.ports.now() };
    const written = await requestWithItsJob(this.ports, { streamId: serverStream(serverId), decider: serverDecider, command, newStream: true }, ctx);
    await settleWithJob(this.ports, written, jobId, SERVER_MODELS);
    const doc = await writtenServer(this.ports, projectId, serverId, written[0].position);
    await this.ports.waitForProjections(archived.position, ['backups']);
    return { doc, jobId };
  }
}

@QueryHandler(GetServer)
export class GetServerHandler implements IQueryHandler<GetServer> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, id }: GetServer): Promise<ServerDoc> {
    return ownServer(this.ports, projectId, id);
  }
}

@QueryHandler(ListServers)
export class ListServersHandler implements IQueryHandler<ListServers> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, filters, page }: ListServers): Promise<Found<ServerDoc>> {
    const filter: Filter = { projectId, status: filters.status ?? { $ne: 'terminated' } };
    if (filters.site) filter.site = filters.site;
    if (filters.role) filter.role = filters.role;
    return (await this.ports.projections.collection(serversProjection)).find({ filter, ...pageOf(page) });
  }
}

@QueryHandler(GetBackup)
export class GetBackupHandler implements IQueryHandler<GetBackup> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ projectId, id }: GetBackup): Promise<BackupDoc> {
    return ownBackup(this.ports, projectId, id);
  }
}

@QueryHandler(ListBackups)
export class ListBackupsHandler implements IQueryHandler<ListBackups> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, source, resourceId, page }: ListBackups): Promise<Found<BackupDoc>> {
    await backupSource(this.ports, projectId, source, resourceId);
    return (await this.ports.projections.collection(backupsProjection)).find({ filter: { projectId, source, resourceId, status: 'available' }, ...pageOf(page) });
  }
}

export const SERVER_HANDLERS = [
  CreateServerHandler,
  RequestServerPowerActionHandler,
  UpdateServerHandler,
  DeleteServerHandler,
  CreateBackupHandler,
  DeleteBackupHandler,
  RestoreBackupHandler,
  GetServerHandler,
  ListServersHandler,
  GetBackupHandler,
  ListBackupsHandler,
];
