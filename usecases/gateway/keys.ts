import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { keyDecider, ORG_KEY_PATTERN, orgKeyPrefix } from '../../libs/domain/gateway/key.decider';
import { gatewayKeyStream, gatewaySessionStream, type KeyLimits } from '../../libs/domain/gateway/events';
import { sessionDecider } from '../../libs/domain/gateway/session.decider';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { Mode } from '../../libs/domain/shared/scope';
import { handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import type { KeyHasher } from '../../libs/runtime/src/key-hasher';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { gatewayKeysProjection, type GatewayKeyDoc } from '../../projections/gateway-keys/gateway-keys.projection';

type KeyPorts = PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>;

/** `gwk_` + 40 lowercase hex characters of 160 random bits (DECISIONS 19). */
export const newOrgKey = (): string => `gwk_${randomBytes(20).toString('hex')}`;

/** Who holds a session: an owner or admin of the project, in the mode of the credential it came from. */
export interface SessionHolder {
  projectId: string;
  /** The data scope the organization's keys, usage and spend live in. */
  scope: string;
  mode: Mode;
  actor: string;
  /** The session's own id (revocation names it). */
  sessionId?: string;
}

export const sessionContext = (s: SessionHolder, requestId: string): CommandContext => ({ metadata: { actor: s.actor, projectId: s.scope, requestId, mode: s.mode } });

/** Mints a key: only its keyed hash is recorded; the key itself is answered once. */
export async function mintKey(ports: KeyPorts, hasher: KeyHasher, session: SessionHolder, input: { name: string; limits: KeyLimits; expiresAt?: string | null }, ctx: CommandContext): Promise<{ key: string; doc: GatewayKeyDoc }> {
  const key = newOrgKey();
  const keyId = uuidv7();
  const stream = gatewayKeyStream(keyId);
  const { position } = await handleCommand(
    ports.events,
    stream,
    keyDecider,
    { type: 'MintKey', keyId, projectId: session.scope, name: input.name, prefix: orgKeyPrefix(key), keyHash: hasher.hash(key), mode: session.mode, limits: input.limits, expiresAt: input.expiresAt ?? null, now: ports.now() },
    ctx,
    { newStream: true },
  );
  // The key works from the answer on: authentication reads the key model.
  await ports.waitForProjections(position, [gatewayKeysProjection.name]);
  const doc = await ports.readBack(gatewayKeysProjection, stream, keyId, position);
  if (!doc) throw new DomainError('CONFLICT', 'The key was minted but is not readable yet; list the keys');
  return { key, doc };
}

export async function revokeKey(ports: KeyPorts, session: SessionHolder, keyId: string, ctx: CommandContext): Promise<void> {
  const stream = gatewayKeyStream(keyId);
  const { position } = await handleCommand(ports.events, stream, keyDecider, { type: 'RevokeKey', keyId, projectId: session.scope, now: ports.now() }, ctx);
  // The revoke answers once the key model (which authentication reads) has it: the next request with the key is refused.
  await ports.waitForProjections(position, [gatewayKeysProjection.name]);
}

export async function changeKeyLimits(ports: KeyPorts, session: SessionHolder, keyId: string, limits: KeyLimits, ctx: CommandContext): Promise<GatewayKeyDoc> {
  const stream = gatewayKeyStream(keyId);
  const { position } = await handleCommand(ports.events, stream, keyDecider, { type: 'ChangeKeyLimits', keyId, projectId: session.scope, limits, now: ports.now() }, ctx);
  // New limits hold from the next call: calls read them from the key model.
  await ports.waitForProjections(position, [gatewayKeysProjection.name]);
  const doc = await ports.readBack(gatewayKeysProjection, stream, keyId, position);
  if (!doc) throw new DomainError('NOT_FOUND', 'Key not found');
  return doc;
}

/** The active key a secret names, or null (unknown, malformed, expired or revoked: the caller does not say which). */
export async function authenticateOrgKey(ports: PortsOf<'projections' | 'clock'>, hasher: KeyHasher, key: string): Promise<GatewayKeyDoc | null> {
  if (!ORG_KEY_PATTERN.test(key)) return null;
  const doc = await (await ports.projections.collection(gatewayKeysProjection)).findOne({ keyHash: hasher.hash(key) });
  if (!doc || doc.revoked) return null;
  return doc.expiresAt && Date.parse(doc.expiresAt) <= ports.clock.now() ? null : doc;
}

/** The context of what an organization key does (its catalog writes, its calls). */
export const keyContext = (doc: Pick<GatewayKeyDoc, 'id' | 'projectId' | 'mode'>, requestId: string): CommandContext => ({ metadata: { actor: `gwkey:${doc.id}`, projectId: doc.projectId, requestId, mode: doc.mode } });

/** Revokes a session for every gateway process: the revocation is an event on the session's own stream. */
export async function revokeSession(ports: PortsOf<'events' | 'now'>, session: SessionHolder, ctx: CommandContext): Promise<void> {
  if (!session.sessionId) return;
  await handleCommand(ports.events, gatewaySessionStream(session.sessionId), sessionDecider, { type: 'RevokeSession', sessionId: session.sessionId, projectId: session.scope, now: ports.now() }, ctx);
}

/** Whether a session was revoked: read from the log (not a read model), so it holds from the revocation's answer on. */
export async function sessionRevoked(ports: PortsOf<'events'>, sessionId: string): Promise<boolean> {
  return (await ports.events.readStream(gatewaySessionStream(sessionId))).length > 0;
}
