import { apiKeyDecider } from '../../libs/domain/identity/api-key.decider';
import { apiKeyStream, type ProjectRole } from '../../libs/domain/identity/events';
import { requestScopedId, handleCommand, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { apiKeysProjection, type ApiKeyDoc } from '../../projections/api-keys/api-keys.projection';
import { newAdminKey, newProjectKey, type KeyHasher } from './api-key-secrets';
import type { PortsOf } from '../../libs/runtime/src/ports';

export interface IssuedKey {
  doc: ApiKeyDoc;
  /** The full key: returned once, never stored (only its keyed hash is); null for a request run again after a crash (DECISIONS 5), whose first run issued it. */
  key: string | null;
}

export interface KeyInput {
  projectId: string | null;
  name: string;
  role: ProjectRole;
  /** A custom role of the project (then `role` is `viewer`). */
  customRoleId?: string;
  /** The key's id, when its custom role was reserved for it first, and that grant (role-holds.ts). */
  keyId?: string;
  roleGrant?: string;
  expiresAt: string | null;
  mode: 'live' | 'test' | 'admin';
}

/** Issues a key (requests and the first-start bootstrap): the secret is made here, the event holds its hash. */
export async function issueApiKey(ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>, hasher: KeyHasher, input: KeyInput, ctx: CommandContext): Promise<IssuedKey> {
  const keyId = input.keyId ?? requestScopedId(ctx, 'api-key');
  const key = input.mode === 'admin' ? newAdminKey() : newProjectKey(input.mode);
  const scope = input.mode === 'admin' ? ('platform-admin' as const) : ('project' as const);
  const command = { type: 'IssueApiKey' as const, keyId, projectId: input.projectId, scope, name: input.name, prefix: key.slice(0, 12), keyHash: hasher.hash(key), role: input.role, ...(input.customRoleId ? { customRoleId: input.customRoleId } : {}), ...(input.roleGrant ? { roleGrant: input.roleGrant } : {}), expiresAt: input.expiresAt, now: ports.now() };
  const result = await handleCommand(ports.events, apiKeyStream(keyId), apiKeyDecider, command, ctx, { newStream: true });
  await ports.waitForProjections(result.position, [apiKeysProjection.name]);
  return { doc: (await ports.readBack(apiKeysProjection, apiKeyStream(keyId), keyId, result.position))!, key: result.replayed ? null : key };
}
