import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { providerDecider } from '../../libs/domain/providers/provider.decider';
import { providerStream, type ProviderChanges, type ProviderKind } from '../../libs/domain/providers/events';
import { requestScopedId, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { notFound } from '../../libs/application/src/errors';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { listResult, type ListResult } from '../../libs/application/src/views';
import type { Credentials } from '../../libs/providers/src/credential-vault';
import { providersProjection, type ProviderDoc } from '../../projections/providers/providers.projection';
import { CatalogValidation } from '../catalog/catalog-validation';
import { findProjectProvider } from './find-provider';
import type { PortsOf } from '../../libs/runtime/src/ports';

export class RegisterProvider extends Command<ProviderDoc> {
  constructor(
    readonly projectId: string,
    readonly input: { name: ProviderKind; credentials: Credentials | null; region: string | null; enabled: boolean },
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class UpdateProvider extends Command<ProviderDoc> {
  constructor(
    readonly projectId: string,
    readonly providerId: string,
    readonly input: { name?: ProviderKind; credentials?: Credentials; region?: string | null; enabled?: boolean },
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class DeleteProvider extends Command<void> {
  constructor(
    readonly projectId: string,
    readonly providerId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class GetProvider extends Query<ProviderDoc> {
  constructor(
    readonly projectId: string,
    readonly providerId: string,
  ) {
    super();
  }
}

export class ListProviders extends Query<ListResult<object>> {
  constructor(
    readonly projectId: string,
    readonly list: ListQuery<{ enabled?: 'true' | 'false'; name?: string }>,
    readonly toResource: (doc: ProviderDoc) => { id: string; type: string; attributes: object },
  ) {
    super();
  }
}

async function ownProvider(ports: PortsOf<'events' | 'projections'>, projectId: string, providerId: string): Promise<ProviderDoc> {
  const doc = await findProjectProvider(ports, projectId, providerId);
  if (!doc) throw notFound('Provider not found');
  return doc;
}

/** A provider's region is one of its kind's catalog (slug, id or site code), else 422 INVALID_REGION; kept as the client wrote it. */
async function checkRegion(ports: PortsOf<'projections'>, kind: ProviderKind, region: string | null | undefined): Promise<void> {
  if (region) await new CatalogValidation(ports).resolveRegion(kind, region);
}

async function written(ports: PortsOf<'readBack' | 'waitForProjections'>, providerId: string, position: number | null): Promise<ProviderDoc> {
  await ports.waitForProjections(position, [providersProjection.name]);
  return (await ports.readBack(providersProjection, providerStream(providerId), providerId, position))!;
}

/** Secrets go to the vault first; the event carries only the reference (DECISIONS 11). */
@CommandHandler(RegisterProvider)
export class RegisterProviderHandler implements ICommandHandler<RegisterProvider> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'vault' | 'waitForProjections'>) {}

  async execute({ projectId, input, context }: RegisterProvider): Promise<ProviderDoc> {
    await checkRegion(this.ports, input.name, input.region);
    const providerId = requestScopedId(context, 'provider');
    const { vault } = this.ports;
    // A re-run after a crash (DECISIONS 5) finds the provider its first run registered, credentials kept: it keeps none again.
    const credentialsRef = input.credentials && !context.metadata.recovering ? await vault.put(projectId, input.credentials) : null;
    const command = { type: 'RegisterProvider' as const, providerId, projectId, name: input.name, enabled: input.enabled, region: input.region, credentialsRef, now: this.ports.now() };
    const result = await handleCommand(this.ports.events, providerStream(providerId), providerDecider, command, context).catch(async (err) => {
      if (credentialsRef) await vault.delete(credentialsRef).catch(() => undefined);
      throw err;
    });
    return written(this.ports, providerId, result.position);
  }
}

@CommandHandler(UpdateProvider)
export class UpdateProviderHandler implements ICommandHandler<UpdateProvider> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'vault' | 'waitForProjections'>) {}

  async execute({ projectId, providerId, input, context }: UpdateProvider): Promise<ProviderDoc> {
    const previous = await ownProvider(this.ports, projectId, providerId);
    // A new region, or the kept one under a new kind, must be in the (new) kind's catalog.
    if (input.region !== undefined || input.name !== undefined) await checkRegion(this.ports, input.name ?? previous.name, input.region === undefined ? previous.region : input.region);
    const { vault } = this.ports;
    const changes: ProviderChanges = { name: input.name, enabled: input.enabled, region: input.region };
    if (input.credentials) changes.credentialsRef = await vault.put(projectId, input.credentials);
    const command = { type: 'UpdateProvider' as const, providerId, projectId, changes, now: this.ports.now() };
    const { position } = await handleCommand(this.ports.events, providerStream(providerId), providerDecider, command, context).catch(async (err) => {
      if (changes.credentialsRef) await vault.delete(changes.credentialsRef).catch(() => undefined);
      throw err;
    });
    // The replaced secret is no longer referenced by the provider's current state.
    if (changes.credentialsRef && previous.credentialsRef) await vault.delete(previous.credentialsRef).catch(() => undefined);
    return written(this.ports, providerId, position);
  }
}

@CommandHandler(DeleteProvider)
export class DeleteProviderHandler implements ICommandHandler<DeleteProvider> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'vault' | 'waitForProjections'>) {}

  async execute({ projectId, providerId, context }: DeleteProvider): Promise<void> {
    const previous = await ownProvider(this.ports, projectId, providerId);
    const command = { type: 'DeleteProvider' as const, providerId, projectId, now: this.ports.now() };
    const { position } = await handleCommand(this.ports.events, providerStream(providerId), providerDecider, command, context);
    await this.ports.waitForProjections(position, [providersProjection.name]);
    if (previous.credentialsRef) await this.ports.vault.delete(previous.credentialsRef).catch(() => undefined);
  }
}

@QueryHandler(GetProvider)
export class GetProviderHandler implements IQueryHandler<GetProvider> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'projections'>) {}

  execute({ projectId, providerId }: GetProvider): Promise<ProviderDoc> {
    return ownProvider(this.ports, projectId, providerId);
  }
}

@QueryHandler(ListProviders)
export class ListProvidersHandler implements IQueryHandler<ListProviders> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list, toResource }: ListProviders): Promise<ListResult<object>> {
    const filter: Record<string, string | boolean | null> = { projectId, deletedAt: null };
    if (list.filters.enabled) filter.enabled = list.filters.enabled === 'true';
    if (list.filters.name) filter.name = list.filters.name;
    const { items, total } = await (await this.ports.projections.collection(providersProjection)).find({ filter, ...pageOf(list) });
    return listResult(items.map(toResource), total);
  }
}

export const PROVIDER_HANDLERS = [RegisterProviderHandler, UpdateProviderHandler, DeleteProviderHandler, GetProviderHandler, ListProvidersHandler];
