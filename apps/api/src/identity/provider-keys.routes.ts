import { Controller, Inject, Req } from '@nestjs/common';
import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { providerKeyDecider, providerKeyStream, type ProviderKeyCommand } from '../../../../libs/domain/identity/provider-keys';
import { handleCommand, requestScopedId, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { notFound } from '../../../../libs/application/src/errors';
import { listOf, type ListQuery } from '../../../../libs/http/src/list-query';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { PROVIDER_KEYS_LIST, providerKeysProjection, type ProviderKeyDoc } from '../../../../projections/provider-keys/provider-keys.projection';
import { BusController } from '../common/bus-controller';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { ownDoc } from '../../../../usecases/jobs/job-writes';
import { findProjectProvider } from '../../../../usecases/providers/find-provider';
import { PORTS } from '../tokens';
import { randomBase62 } from '../../../../usecases/identity/api-key-secrets';
import { commandContext } from './request-context';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

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
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'vault' | 'waitForProjections'>) {}

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
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'vault' | 'waitForProjections'>) {}

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
  constructor(@Inject(PORTS) private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId, list }: ListProviderKeys) {
    const filter: Record<string, string> = { projectId };
    if (list.filters.providerId) filter.providerId = list.filters.providerId;
    return (await this.ports.projections.collection(providerKeysProjection)).find({ filter, sort: list.sort, skip: list.skip, limit: list.limit });
  }
}

export const PROVIDER_KEY_HANDLERS = [CreateProviderKeyHandler, ChangeProviderKeyHandler, ListProviderKeysHandler];

// ---------------------------------------------------------------- routes
const TYPE = 'provider-api-keys';
const attributes = z.object({
  name: z.string(),
  providerId: z.string(),
  prefix: z.string().describe('First 12 characters of the secret'),
  createdAt: z.string(),
  rotatedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable().describe('Null until a provider integration uses the key'),
});
const withSecret = attributes.extend({ secret: z.string().describe('Shown in this response only; kept in the credential vault') });
const keyParams = z.object({ keyId: pathId });
const common = { tag: 'Identity', auth: 'project' } as const;

const listRoute = route({ ...common, method: 'GET', path: '/v1/iam/api-keys', summary: 'List the provider API keys (never their secrets)', permission: 'provider-keys:read', list: listOf(TYPE, PROVIDER_KEYS_LIST), query: z.object({ providerId: z.string().min(1).max(1024).optional() }), responses: { 200: collectionSchema(TYPE, attributes) } });
const createRoute = route({ ...common, method: 'POST', path: '/v1/iam/api-keys', summary: 'Create a provider API key; its secret is in this response only', permission: 'provider-keys:write', type: TYPE, idempotent: true, body: z.object({ name: z.string().trim().min(1).max(64), providerId: z.string().min(1).max(1024) }), responses: { 201: resourceSchema(TYPE, withSecret) } });
const rotateRoute = route({ ...common, method: 'POST', path: '/v1/iam/api-keys/{keyId}/rotate', summary: 'Replace the secret (the old one stops working); the new one is in this response only', permission: 'provider-keys:write', params: keyParams, idempotent: true, responses: { 200: resourceSchema(TYPE, withSecret) } });
const deleteRoute = route({ ...common, method: 'DELETE', path: '/v1/iam/api-keys/{keyId}', summary: 'Revoke and delete a provider API key (204, then 404)', permission: 'provider-keys:write', params: keyParams, responses: { 204: null } });

const keyResource = (d: ProviderKeyDoc) => ({ id: d.id, type: TYPE, attributes: { name: d.name, providerId: d.providerId, prefix: d.prefix, createdAt: d.createdAt, rotatedAt: d.rotatedAt, lastUsedAt: d.lastUsedAt } });
/** A create's or rotation's answer: the secret once; a re-run after a crash (no secret) says why it is not shown. */
const withSecretDocument = ({ doc, secret }: ProviderKeyAnswer, lost: string) =>
  secret === undefined ? resource(TYPE, doc.id, keyResource(doc).attributes, { meta: { secret: lost } }) : resource(TYPE, doc.id, { ...keyResource(doc).attributes, secret });

@Controller()
export class ProviderKeysController extends BusController {
  @ApiRoute(listRoute)
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListProviderKeys(dataScopeOf(principal), list));
    return listResult(items.map(keyResource), total);
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    return withSecretDocument(await this.commands.execute(new CreateProviderKey(dataScopeOf(principal), body, commandContext(req, principal))), 'Not shown: the answer that carried it was lost in an outage. Rotate the key for a new one.');
  }

  @ApiRoute(rotateRoute)
  async rotate(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof rotateRoute>['params']) {
    return withSecretDocument((await this.commands.execute(new ChangeProviderKey(dataScopeOf(principal), params.keyId, 'rotate', commandContext(req, principal))))!, 'Not shown: the answer that carried the new secret was lost in an outage. Rotate the key again for another one.');
  }

  @ApiRoute(deleteRoute)
  async delete(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof deleteRoute>['params']) {
    await this.commands.execute(new ChangeProviderKey(dataScopeOf(principal), params.keyId, 'delete', commandContext(req, principal)));
  }
}
