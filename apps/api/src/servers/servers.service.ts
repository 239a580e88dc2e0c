import { v7 as uuidv7 } from 'uuid';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { planRole, serverDecider } from '../../../../libs/domain/servers/server.decider';
import { serverStream, type ServerPowerAction, type ServerRole, type ServerSpecData, type Tag } from '../../../../libs/domain/servers/server.events';
import { backupDecider } from '../../../../libs/domain/servers/backup.decider';
import { backupStream, type BackupSource } from '../../../../libs/domain/servers/backup.events';
import { jobStream } from '../../../../libs/domain/jobs/events';
import { badRequest, invalidState, notFound } from '../../../../libs/http/src/errors';
import { serversProjection, type ServerDoc } from '../../../../projections/servers/servers.projection';
import { backupsProjection, type BackupDoc } from '../../../../projections/backups/backups.projection';
import { instancesProjection } from '../../../../projections/instances/instances.projection';
import { sshKeysProjection } from '../../../../projections/ssh-keys/ssh-keys.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { requireProjectProvider } from '../common/project-provider';
import { normalizeTags } from '../instances/instances.service';
import type { Platform } from '../../../../libs/runtime/src/platform';

type TagsInput = Record<string, string> | Tag[];

export interface CreateServerInput {
  name: string;
  hostname: string;
  site: string;
  plan: string;
  operating_system: string;
  billing: 'hourly' | 'monthly' | 'yearly';
  ssh_keys?: string[];
  user_data?: string;
  tags?: TagsInput;
  role?: ServerRole;
  provider?: string;
  worker_count?: number;
  spot?: boolean;
  accelerators?: string;
}

export interface UpdateServerInput {
  label?: string;
  locked?: boolean;
  tags?: TagsInput;
  plan?: string;
}

const DISPATCHER = 'saga:job-dispatcher';

/** Server and backup writes (spec 4.2, DECISIONS 8): each accepted operation records an event carrying its job id. */
export class ServersService {
  private readonly catalog: CatalogValidation;

  constructor(private readonly platform: Platform) {
    this.catalog = new CatalogValidation(platform);
  }

  servers() {
    return this.platform.projections.collection(serversProjection);
  }

  backups() {
    return this.platform.projections.collection(backupsProjection);
  }

  async get(projectId: string, id: string): Promise<ServerDoc> {
    const doc = await (await this.servers()).get(id);
    if (!doc || doc.projectId !== projectId) throw notFound('Server not found');
    return doc;
  }

  async create(projectId: string, input: CreateServerInput, ctx: CommandContext, pointerPrefix = ''): Promise<{ doc: ServerDoc; jobId: string }> {
    const plan = await this.catalog.resolvePlan(input.plan);
    if (!input.provider && (input.role ?? planRole(plan)) === 'VirtualMachine') {
      throw badRequest([{ detail: 'provider is required for VirtualMachine servers', source: { pointer: `${pointerPrefix}/provider` } }]);
    }
    // A provider, when named (always for VMs), must be this project's and enabled; the decider checks it offers the plan.
    const provider = input.provider ? await requireProjectProvider(this.platform, projectId, input.provider, { requireEnabled: true }) : null;
    const region = await this.catalog.resolveSite(input.site, plan.providerKind);
    const os = await this.catalog.resolveOs(input.operating_system, plan);
    await this.requireSshKeys(projectId, provider?.id ?? null, input.ssh_keys ?? [], pointerPrefix);
    const request = {
      name: input.name,
      hostname: input.hostname,
      billing: input.billing,
      role: input.role,
      sshKeys: input.ssh_keys,
      userData: input.user_data,
      tags: normalizeTags(input.tags),
      workerCount: input.worker_count,
      spot: input.spot,
      accelerators: input.accelerators,
    };
    const serverId = uuidv7();
    const jobId = uuidv7();
    const catalog = { plan, provider: provider ? { id: provider.id, kind: provider.name } : null, region, os };
    const r = await handleCommand(this.platform.events, serverStream(serverId), serverDecider, { type: 'RequestServer', serverId, jobId, projectId, request, catalog, now: this.platform.now() }, ctx);
    await this.settle(r.position, jobId);
    return { doc: await this.written(projectId, serverId, r.position), jobId };
  }

  /**
   * The keys to inject must be this project's SSH keys, and the named provider's when there is one
   * (keys are registered per provider, spec 4.7); 400 with a pointer to each unknown entry.
   */
  private async requireSshKeys(projectId: string, providerId: string | null, ids: string[], pointerPrefix: string): Promise<void> {
    if (ids.length === 0) return;
    const found = new Map((await (await this.platform.projections.collection(sshKeysProjection)).getMany(ids)).map((k) => [k.id, k]));
    const errors = ids.flatMap((id, i) => {
      const key = found.get(id);
      if (key && key.projectId === projectId && (providerId === null || key.providerId === providerId)) return [];
      return [{ detail: `SSH key ${id} not found${providerId ? ` for provider ${providerId}` : ''}`, source: { pointer: `${pointerPrefix}/ssh_keys/${i}` } }];
    });
    if (errors.length > 0) throw badRequest(errors);
  }

  async act(projectId: string, id: string, action: ServerPowerAction, ctx: CommandContext): Promise<{ doc: ServerDoc; jobId: string }> {
    await this.get(projectId, id);
    const jobId = uuidv7();
    const r = await handleCommand(this.platform.events, serverStream(id), serverDecider, { type: 'RequestServerPowerAction', jobId, action, now: new Date().toISOString(), requestedBy: actor(ctx) }, ctx);
    await this.settle(r.position, jobId);
    return { doc: await this.written(projectId, id, r.position), jobId };
  }

  /** Label, tags, lock; a changed plan starts a migration job (its id is returned). */
  async update(projectId: string, id: string, input: UpdateServerInput, ctx: CommandContext): Promise<{ doc: ServerDoc; jobId: string | null }> {
    await this.get(projectId, id);
    const plan = input.plan === undefined ? undefined : await this.catalog.resolvePlan(input.plan);
    const jobId = uuidv7();
    const r = await handleCommand(
      this.platform.events,
      serverStream(id),
      serverDecider,
      { type: 'UpdateServer', jobId, label: input.label, locked: input.locked, tags: input.tags === undefined ? undefined : normalizeTags(input.tags), plan, now: new Date().toISOString(), requestedBy: actor(ctx) },
      ctx,
    );
    const migrating = r.events.some((e) => e.type === 'compute.ServerMigrationRequested.v1');
    if (migrating) await this.settle(r.position, jobId);
    else await this.platform.waitForProjections(r.position, ['servers']);
    return { doc: await this.written(projectId, id, r.position), jobId: migrating ? jobId : null };
  }

  async remove(projectId: string, id: string, ctx: CommandContext): Promise<{ jobId: string }> {
    await this.get(projectId, id);
    const jobId = uuidv7();
    const r = await handleCommand(this.platform.events, serverStream(id), serverDecider, { type: 'RequestServerDeletion', jobId, now: new Date().toISOString(), requestedBy: actor(ctx) }, ctx);
    await this.settle(r.position, jobId);
    return { jobId };
  }

  /** The machine a backup route names: a server, or an instance through the instance aliases. */
  private async backupSource(projectId: string, source: BackupSource, id: string): Promise<{ spec: ServerSpecData; status: string }> {
    if (source === 'server') {
      const s = await this.get(projectId, id);
      const { id: _i, _position, status, locked: _l, jobId: _j, externalId: _e, ipv4: _v, errorMessage: _m, restoredFromBackup: _r, createdAt: _c, updatedAt: _u, deletedAt: _d, ...spec } = s;
      return { spec, status };
    }
    const inst = await (await this.platform.projections.collection(instancesProjection)).get(id);
    if (!inst || inst.projectId !== projectId) throw notFound('Instance not found');
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

  async listBackups(projectId: string, source: BackupSource, id: string, page: { sort: { field: string; direction: 1 | -1 }[]; skip: number; limit: number }) {
    await this.backupSource(projectId, source, id);
    return (await this.backups()).find({ filter: { projectId, source, resourceId: id, status: 'available' }, sort: page.sort, skip: page.skip, limit: page.limit });
  }

  async createBackup(projectId: string, source: BackupSource, id: string, name: string, ctx: CommandContext): Promise<BackupDoc> {
    const { spec, status } = await this.backupSource(projectId, source, id);
    if (['deleting', 'terminating', 'terminated'].includes(status)) throw invalidState(`Cannot back up a ${source} in status ${status}`);
    const backupId = uuidv7();
    const r = await handleCommand(
      this.platform.events,
      backupStream(backupId),
      backupDecider,
      { type: 'CreateBackup', backup: { backupId, projectId, name, source, resourceId: id, serverSpec: spec, createdAt: new Date().toISOString() } },
      ctx,
    );
    await this.platform.waitForProjections(r.position, ['backups']);
    const doc = await this.platform.readBack(backupsProjection, backupStream(backupId), backupId, r.position);
    if (!doc) throw notFound('Backup not found');
    return doc;
  }

  async getBackup(projectId: string, id: string): Promise<BackupDoc> {
    const doc = await (await this.backups()).get(id);
    if (!doc || doc.projectId !== projectId || doc.status !== 'available') throw notFound('Backup not found');
    return doc;
  }

  async deleteBackup(projectId: string, id: string, ctx: CommandContext): Promise<void> {
    await this.getBackup(projectId, id);
    const r = await handleCommand(this.platform.events, backupStream(id), backupDecider, { type: 'ArchiveBackup', reason: 'deleted', now: new Date().toISOString() }, ctx);
    await this.platform.waitForProjections(r.position, ['backups']);
  }

  /** A new server from the backup's machine spec; the backup is archived first, so it restores once. */
  async restore(projectId: string, id: string, ctx: CommandContext): Promise<{ doc: ServerDoc; jobId: string }> {
    const backup = await this.getBackup(projectId, id);
    const serverId = uuidv7();
    const archived = await handleCommand(this.platform.events, backupStream(id), backupDecider, { type: 'ArchiveBackup', reason: 'restored', restoredServerId: serverId, now: new Date().toISOString() }, ctx);
    const jobId = uuidv7();
    const r = await handleCommand(this.platform.events, serverStream(serverId), serverDecider, { type: 'RestoreServer', serverId, jobId, spec: { ...backup.serverSpec, projectId }, backupId: id, now: this.platform.now() }, ctx);
    await this.settle(r.position, jobId);
    const created = { doc: await this.written(projectId, serverId, r.position), jobId };
    await this.platform.waitForProjections(archived.position, ['backups']);
    return created;
  }

  private async written(projectId: string, id: string, position: number | null): Promise<ServerDoc> {
    const doc = await this.platform.readBack(serversProjection, serverStream(id), id, position);
    if (!doc || doc.projectId !== projectId) throw notFound('Server not found');
    return doc;
  }

  /** Read-your-writes for the server and for the job the dispatcher creates from its event. */
  private async settle(position: number | null, jobId: string): Promise<void> {
    if (position === null) return;
    const ok = await this.platform.waitForProjections(position, ['servers']);
    const jobReady = ok && (await this.platform.consistency.waitForSaga(DISPATCHER, position, jobStream(jobId), ['jobs']));
    if (!jobReady) this.platform.logger.warn({ jobId, position }, 'read models did not catch up within the consistency wait');
  }
}

const actor = (ctx: CommandContext) => String(ctx.metadata.actor ?? 'unknown');
