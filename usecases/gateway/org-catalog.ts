import { v7 as uuidv7 } from 'uuid';
import { publicModel } from '../../libs/domain/gateway/catalog';
import { connectionDecider } from '../../libs/domain/gateway/connection.decider';
import { gatewayConnectionStream, gatewayModelStream, gatewayWaterfallStream, SIMULATOR_CONNECTION, type ConnectionKind, type CustomModelFields, type WaterfallTarget } from '../../libs/domain/gateway/events';
import { customModelDecider, waterfallDecider } from '../../libs/domain/gateway/org-model.decider';
import type { ModelPrice } from '../../libs/domain/gateway/pricing';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { Mode } from '../../libs/domain/shared/scope';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { gatewayConnectionsProjection, type GatewayConnectionDoc } from '../../projections/gateway-connections/gateway-connections.projection';
import { gatewayCustomModelsProjection, gatewayWaterfallsProjection, orgModelDocId, type GatewayCustomModelDoc } from '../../projections/gateway-models/gateway-models.projection';

type WritePorts = PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections' | 'projections'>;

/** Who acts on an organization's catalog: a key or a session, in one data scope. */
export interface Organization {
  scope: string;
  mode: Mode;
}

/** The upstream a connection reaches, and the one cheap call that proves it answers. */
export interface ConnectionProbe {
  verify(connection: GatewayConnectionDoc, secret: string): Promise<number>;
}

// ---------------------------------------------------------------- provider connections
/** Adds a connection: the secret goes to the vault first, the event carries only its reference. */
export async function addConnection(ports: WritePorts & PortsOf<'vault'>, org: Organization, input: { name: string; kind: ConnectionKind; baseUrl: string; secret: string }, ctx: CommandContext): Promise<GatewayConnectionDoc> {
  const connectionId = `conn_${uuidv7().replace(/-/g, '')}`;
  const stream = gatewayConnectionStream(connectionId);
  const secretRef = await ports.vault.put(org.scope, { secret: input.secret });
  let position: number | null;
  try {
    ({ position } = await handleCommand(ports.events, stream, connectionDecider, { type: 'AddConnection', connectionId, projectId: org.scope, name: input.name, kind: input.kind, baseUrl: input.baseUrl, secretRef, now: ports.now() }, ctx, { newStream: true }));
  } catch (err) {
    await ports.vault.delete(secretRef).catch(() => undefined);
    throw err;
  }
  await ports.waitForProjections(position, [gatewayConnectionsProjection.name]);
  const doc = await ports.readBack(gatewayConnectionsProjection, stream, connectionId, position);
  if (!doc) throw new DomainError('CONFLICT', 'The connection was added but is not readable yet; list the connections');
  return doc;
}

export async function connectionOf(ports: PortsOf<'projections'>, org: Organization, connectionId: string): Promise<GatewayConnectionDoc> {
  const doc = await (await ports.projections.collection(gatewayConnectionsProjection)).get(connectionId);
  if (!doc || doc.projectId !== org.scope) throw new DomainError('NOT_FOUND', 'Connection not found');
  return doc;
}

/** Calls the upstream's models route with the stored secret and records the outcome (a failed verification is a fact too). */
export async function verifyConnection(ports: WritePorts & PortsOf<'vault'>, probe: ConnectionProbe, org: Organization, connectionId: string, ctx: CommandContext): Promise<GatewayConnectionDoc> {
  const doc = await connectionOf(ports, org, connectionId);
  const secret = (await ports.vault.get(doc.secretRef))?.secret;
  let ok = false;
  let models: number | null = null;
  let error: string | null = null;
  if (!secret) error = 'the secret is no longer stored';
  else {
    try {
      models = await probe.verify(doc, secret);
      ok = true;
    } catch (err) {
      error = err instanceof Error ? err.message : 'upstream failed';
    }
  }
  const stream = gatewayConnectionStream(connectionId);
  const { position } = await handleCommand(ports.events, stream, connectionDecider, { type: 'RecordVerification', connectionId, projectId: org.scope, ok, models, error, now: ports.now() }, ctx);
  await ports.waitForProjections(position, [gatewayConnectionsProjection.name]);
  return (await ports.readBack(gatewayConnectionsProjection, stream, connectionId, position)) ?? doc;
}

/** Deletes a connection and shreds its secret; models and waterfalls naming it fail over past it (or answer 404 when it was their only step). */
export async function deleteConnection(ports: WritePorts & PortsOf<'vault'>, org: Organization, connectionId: string, ctx: CommandContext): Promise<void> {
  const doc = await connectionOf(ports, org, connectionId);
  const { position } = await handleCommand(ports.events, gatewayConnectionStream(connectionId), connectionDecider, { type: 'DeleteConnection', connectionId, projectId: org.scope, now: ports.now() }, ctx);
  await ports.vault.delete(doc.secretRef).catch(() => undefined);
  await ports.waitForProjections(position, [gatewayConnectionsProjection.name]);
}

// ---------------------------------------------------------------- custom models
const checkTarget = async (ports: PortsOf<'projections'>, org: Organization, connectionId: string) => {
  if (connectionId !== SIMULATOR_CONNECTION) await connectionOf(ports, org, connectionId);
};

export async function createCustomModel(ports: WritePorts, org: Organization, alias: string, fields: CustomModelFields, ctx: CommandContext): Promise<GatewayCustomModelDoc> {
  await checkTarget(ports, org, fields.connectionId);
  const stream = gatewayModelStream(org.scope, alias);
  const { position } = await handleCommand(ports.events, stream, customModelDecider, { type: 'CreateCustomModel', projectId: org.scope, alias, fields, now: ports.now() }, ctx);
  return readModel(ports, org, alias, stream, position);
}

export async function changeCustomModel(ports: WritePorts, org: Organization, alias: string, changes: Partial<CustomModelFields>, ctx: CommandContext): Promise<GatewayCustomModelDoc> {
  if (changes.connectionId) await checkTarget(ports, org, changes.connectionId);
  const stream = gatewayModelStream(org.scope, alias);
  const { position } = await handleCommand(ports.events, stream, customModelDecider, { type: 'ChangeCustomModel', projectId: org.scope, alias, changes, now: ports.now() }, ctx);
  return readModel(ports, org, alias, stream, position);
}

export async function deleteCustomModel(ports: WritePorts, org: Organization, alias: string, ctx: CommandContext): Promise<void> {
  const { position } = await handleCommand(ports.events, gatewayModelStream(org.scope, alias), customModelDecider, { type: 'DeleteCustomModel', projectId: org.scope, alias, now: ports.now() }, ctx);
  await ports.waitForProjections(position, [gatewayCustomModelsProjection.name]);
}

async function readModel(ports: WritePorts, org: Organization, alias: string, stream: string, position: number | null): Promise<GatewayCustomModelDoc> {
  await ports.waitForProjections(position, [gatewayCustomModelsProjection.name]);
  const doc = await ports.readBack(gatewayCustomModelsProjection, stream, orgModelDocId(org.scope, alias), position);
  if (!doc) throw new DomainError('NOT_FOUND', 'Model not found');
  return doc;
}

// ---------------------------------------------------------------- waterfalls and the route of a call
/** Sets a model's waterfall: every step names a connection of the organization (or the simulator). */
export async function setWaterfall(ports: WritePorts, org: Organization, model: string, targets: { connectionId: string; model?: string }[], ctx: CommandContext): Promise<WaterfallTarget[]> {
  const own = await resolveModel(ports, org, model);
  if (!own) throw new DomainError('NOT_FOUND', `Model ${model} not found`);
  for (const t of targets) await checkTarget(ports, org, t.connectionId);
  const full = targets.map((t) => ({ connectionId: t.connectionId, model: t.model ?? own.defaultUpstreamModel }));
  const { position } = await handleCommand(ports.events, gatewayWaterfallStream(org.scope, model), waterfallDecider, { type: 'SetWaterfall', projectId: org.scope, model, targets: full, now: ports.now() }, ctx);
  await ports.waitForProjections(position, [gatewayWaterfallsProjection.name]);
  return full;
}

/** A model a call may name: its price, output bound and waterfall. */
export interface ModelRoute {
  id: string;
  source: 'public' | 'custom' | 'local';
  price: ModelPrice;
  maxOutputTokens: number;
  /** The upstream model name a waterfall step uses when it names none. */
  defaultUpstreamModel: string;
  targets: WaterfallTarget[];
}

/**
 * The route of a model for an organization: a public row or one of its custom models, with the
 * waterfall it set (else the model's own connection, or the simulator for a public row). Null: no
 * such model for this organization (another's custom models are invisible).
 */
export async function resolveModel(ports: PortsOf<'projections'>, org: Organization, model: string): Promise<ModelRoute | null> {
  const pub = publicModel(model);
  const custom = pub ? null : await (await ports.projections.collection(gatewayCustomModelsProjection)).get(orgModelDocId(org.scope, model));
  if (!pub && !custom) return null;
  const waterfall = await (await ports.projections.collection(gatewayWaterfallsProjection)).get(orgModelDocId(org.scope, model));
  if (pub) return { id: pub.id, source: 'public', price: pub.price, maxOutputTokens: pub.maxOutputTokens, defaultUpstreamModel: pub.id, targets: waterfall?.targets ?? [{ connectionId: SIMULATOR_CONNECTION, model: pub.id }] };
  const c = custom!;
  return { id: c.alias, source: c.kind ?? 'custom', price: c.price, maxOutputTokens: c.maxOutputTokens, defaultUpstreamModel: c.upstreamModel, targets: waterfall?.targets ?? [{ connectionId: c.connectionId, model: c.upstreamModel }] };
}
