import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { providerKeyDecider, providerKeyStream, type ProviderKeyCommand } from '../../libs/domain/identity/provider-keys';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { notFound } from '../../libs/application/src/errors';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { providerKeysProjection, type ProviderKeyDoc } from '../../projections/provider-keys/provider-keys.projection';
import { InjectPorts } from '../inject-ports';
import { ownDoc } from '../jobs/job-writes';
import { findProjectProvider } from '../providers/find-provider';
import { randomBase62 } from './api-key-secrets';

/**
 * A key and, on create and rotate only, its secret (from the vault's point of view: never stored
 * elsewhere); none for a request run again after a crash lost its answer (DECISIONS 5), whose first
 * run made the secret that is kept.
 */
export interface ProviderKeyAnswer {
  doc: ProviderKeyDoc;
  secret?: string;
}

export class CreateProviderKey extends Command<ProviderKeyAnswer> {
  constructor(readonly projectId: string, readonly input: { name: string; providerId: string }, readonly context: CommandContext) {
    super();
  }
}
/** `rotate`: a new secret replaces the old one (which is shredded from the vault); else the key is deleted. */
export class ChangeProviderKey extends Command<ProviderKeyAnswer | null> {
  constructor(readonly projectId: string, readonly keyId: string, readonly change: 'rotate' | 'delete', readonly context: CommandContext) {
    super();
  }
}
export class ListProviderKeys extends Query<{ items: ProviderKeyDoc[]; total: number }> {
  constructor(readonly projectId: string, readonly list: ListQuery<{ providerId?: string }>) {
    super();
  }
}

const newSecret = () => `pk_${randomBase62(40)}`;
const PREFIX_LENGTH = 12;

/** The key as of the write (null once deleted), and whether a re-run found its first run's write (`replayed`). */
async function decideKey(ports: PortsOf<'events' | 'readBack' | 'waitForProjections'>, keyId: string, command: ProviderKeyCommand, context: CommandContext, newStream = false): Promise<{ doc: ProviderKeyDoc | null; replayed: boolean }> {
  const { position, events, replayed } = await handleCommand(ports.events, providerKeyStream(keyId), providerKeyDecider, command, context, { newStream });
  await ports.waitForProjections(position, [providerKeysProjection.name]);
  if (events[0]?.type === 'identity.ProviderKeyDeleted.v1') return { doc: null, replayed: !!replayed };
  return { doc: await ports.readBack(providerKeysProjection, providerKeyStream(keyId), keyId, position), replayed: !!replayed };
}

/** A secret made for a write its re-run found already done (DECISIONS 5): shredded, and not shown. */
async function keptSecret(ports: PortsOf<'vault'>, written: { doc: ProviderKeyDoc | null; replayed: boolean }, secret: string, secretRef: string): Promise<ProviderKeyAnswer> {
  if (!written.replayed) return { doc: written.doc!, secret };
  await ports.vault.delete(secretRef).catch(() => undefined);
  return { doc: written.doc! };
}

@CommandHandler(CreateProviderKey)
export class CreateProviderKeyHandler implements ICommandHandler<CreateProviderKey> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'vault' | 'waitForProjections'>) {}

  async execute({ projectId, input, context }: CreateProviderKey): Promise<ProviderKeyAnswer> {
    if (!(await findProjectProvider(this.ports, projectId, input.providerId))) throw notFound('Provider not found');
    const keyId = requestScopedId(context, 'provider-key');
    const secret = newSecret();
    // The vault first: the event carries only its reference (DECISIONS 11 and 15).
    const secretRef = await this.ports.vault.put(projectId, { secret });
    let written: Awaited<ReturnType<typeof decideKey>>;
    try {
      const command = { type: 'CreateProviderKey' as const, keyId, projectId, ...input, prefix: secret.slice(0, PREFIX_LENGTH), secretRef, now: this.ports.now() };
      written = await decideKey(this.ports, keyId, command, context, true);
    } catch (err) {
      await this.ports.vault.delete(secretRef).catch(() => undefined);
      throw err;
    }
    return keptSecret(this.ports, written, secret, secretRef);
  }
}

@CommandHandler(ChangeProviderKey)
export class ChangeProviderKeyHandler implements ICommandHandler<ChangeProviderKey> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'vault' | 'waitForProjections'>) {}

  async execute({ projectId, keyId, change, context }: ChangeProviderKey): Promise<ProviderKeyAnswer | null> {
    const { vault } = this.ports;
    const now = this.ports.now();
    const previous = await ownDoc(this.ports, providerKeysProjection, projectId, keyId, 'Provider API key');
    if (change === 'delete') {
      await decideKey(this.ports, keyId, { type: 'DeleteProviderKey', keyId, projectId, now }, context);
      await vault.delete(previous.secretRef).catch(() => undefined);
      return null;
    }
    const secret = newSecret();
    const secretRef = await vault.put(projectId, { secret });
    let written: Awaited<ReturnType<typeof decideKey>>;
    try {
      written = await decideKey(this.ports, keyId, { type: 'RotateProviderKey', keyId, projectId, prefix: secret.slice(0, PREFIX_LENGTH), secretRef, now }, context);
    } catch (err) {
      await vault.delete(secretRef).catch(() => undefined);
      throw err;
    }
    // The old secret stops working: shredded from the vault (a re-run's "previous" is its first run's, kept).
    if (!written.replayed) await vault.delete(previous.secretRef).catch(() => undefined);
    return keptSecret(this.ports, written, secret, secretRef);
  }
}

@QueryHandler(ListProviderKeys)
export class ListProviderKeysHandler implements IQueryHandler<ListProviderKeys> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list }: ListProviderKeys) {
    const filter: Record<string, string> = { projectId };
    if (list.filters.providerId) filter.providerId = list.filters.providerId;
    return (await this.ports.projections.collection(providerKeysProjection)).find({ filter, ...pageOf(list) });
  }
}

export const PROVIDER_KEY_HANDLERS = [CreateProviderKeyHandler, ChangeProviderKeyHandler, ListProviderKeysHandler];
