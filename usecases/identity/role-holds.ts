/**
 * Custom-role holds (libs/domain/identity/custom-roles.ts): a grant of a custom role is reserved on the
 * role's stream before the holder's own event, released after the holder gives it up, and a delete
 * proves every hold of its fold void on the holder's stream before it is appended (at the revision
 * it read, so a grant recorded meanwhile makes it decide again: in use). The reservation mechanism
 * (../reservations.ts) with the role stream as its ledger; what is the roles' own: how a holder's
 * stream says it holds the role, and closing a grant there so that it never can (no clock involved).
 */
import { apiKeyDecider, apiKeyHoldsRole } from '../../libs/domain/identity/api-key.decider';
import { customRolesDecider, customRolesStream, type CustomRole, type RoleHolder } from '../../libs/domain/identity/custom-roles';
import { apiKeyStream } from '../../libs/domain/identity/events';
import { memberHoldsRole, membershipDecider, membershipStream } from '../../libs/domain/identity/membership';
import { DomainError } from '../../libs/domain/shared/domain-error';
import type { CustomRoleCommand } from '../../libs/domain/identity/custom-roles';
import { requestScopedId, handleCommand, withoutIdempotencyKey, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../libs/eventstore/src/aggregate-stream';
import { badRequest, unavailable } from '../../libs/application/src/errors';
import { apiKeysProjection } from '../../projections/api-keys/api-keys.projection';
import { membersProjection } from '../../projections/members/members.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { release, releasableHolders, reserve } from '../reservations';

/**
 * Every write on the role's stream concerns one project's grants, and several requests may grant at
 * once: a lost revision check is retried on the fresh fold until one of them is refused by the rules
 * (each round commits at least one of the racing appends).
 */
const HOLD_ATTEMPTS = 64;

/** The role stream as the ledger of its grants. */
const rolesLedger = (projectId: string) => ({ stream: customRolesStream(projectId), decider: customRolesDecider, attempts: HOLD_ATTEMPTS });

/**
 * The appends a request makes beside its own write carry no Idempotency-Key reservation: the key's
 * committed write stays the holder's (its lost answer is recovered from that stream), and a reservation
 * left by a crash before it is simply a hold whose grant never happened.
 */
const aside = withoutIdempotencyKey;

/** As an unknown role answers (members.handlers.ts roleGrantee): 400 on the request's `role`. */
const unknownRole = (builtIns: readonly string[]) => badRequest([{ detail: `role must be one of ${builtIns.join(', ')} or the id of a custom role of this project`, source: { pointer: '/role' } }]);

/**
 * Reserves the custom role `roleId` of `projectId` for `holder`; the holder's event must then name
 * the returned grant. A role deleted meanwhile answers as an unknown one (`builtIns`: the request's choices).
 */
export async function reserveRole(ports: PortsOf<'events' | 'now'>, projectId: string, roleId: string, holder: RoleHolder, builtIns: readonly string[], context: CommandContext): Promise<string> {
  const grantId = requestScopedId(context, 'role-grant');
  try {
    await reserve(ports, rolesLedger(projectId), (_, now): CustomRoleCommand => ({ type: 'GrantRole', roleId, projectId, grantId, holder, now }), context);
  } catch (err) {
    // Deleted since the caller looked it up.
    if (err instanceof DomainError && err.code === 'NOT_FOUND') throw unknownRole(builtIns);
    throw err;
  }
  return grantId;
}

/**
 * Records that `grantId` holds its role no more. Best effort: the holder's own event is already
 * written, and a hold left behind (a crash, a failure here) costs nothing but a look at the holder's
 * stream when the role is deleted.
 */
export async function releaseRole(ports: PortsOf<'events' | 'logger' | 'now'>, projectId: string, grantId: string | null | undefined, context: CommandContext): Promise<void> {
  if (!grantId) return;
  await release(ports, rolesLedger(projectId), (now): CustomRoleCommand => ({ type: 'ReleaseRole', projectId, grantId, now }), context, { projectId, grantId });
}

/**
 * A request whose holder write failed gives its reservation back, unless the holder holds the role
 * after all (a write that committed though its answer was lost): then the hold stays, as it must.
 */
export async function releaseUnheld(ports: PortsOf<'events' | 'logger' | 'now'>, projectId: string, roleId: string, grantId: string | undefined, holder: RoleHolder, context: CommandContext): Promise<void> {
  if (!grantId) return;
  const held = await holds(ports, projectId, roleId, grantId, holder, null).catch(() => true);
  if (!held) await releaseRole(ports, projectId, grantId, context);
}

/** Whether the holder, as its own stream says now, acts with `roleId`; `close`: when it does not, make sure it never will by this grant. */
async function holds(ports: PortsOf<'events' | 'now'>, projectId: string, roleId: string, grantId: string, holder: RoleHolder, close: CommandContext | null): Promise<boolean> {
  const now = ports.now();
  if (holder.kind === 'api-key') {
    const stream = apiKeyStream(holder.id);
    if (close) return apiKeyHoldsRole((await handleCommand(ports.events, stream, apiKeyDecider, { type: 'VoidApiKeyGrant', keyId: holder.id, projectId, roleId, grantId, now }, close, { attempts: HOLD_ATTEMPTS })).state, roleId);
    return apiKeyHoldsRole((await aggregateStream(ports.events, stream, apiKeyDecider)).state, roleId);
  }
  // Custom roles are one project's: its members hold them in the project's registry (the workspace
  // registry of a founding project, whose members held its custom roles before workspaces, shares it).
  const stream = membershipStream(projectId);
  if (close) return memberHoldsRole((await handleCommand(ports.events, stream, membershipDecider, { type: 'VoidMemberGrant', memberId: holder.id, projectId, roleId, grantId, now }, close, { attempts: HOLD_ATTEMPTS })).state, holder.id, roleId);
  return memberHoldsRole((await aggregateStream(ports.events, stream, membershipDecider)).state, holder.id, roleId);
}

/**
 * The grants of `role`'s holds that hold it no more, proven on each holder's stream. First a look
 * (any holder still holding: the role is in use, nothing is closed); then each other grant is closed
 * on its holder's stream (a key not issued yet can never be; a member's grant not made yet never
 * will be), which also catches a grant made between the look and the close.
 */
export async function releasedHolds(ports: PortsOf<'events' | 'now'>, projectId: string, role: CustomRole, context: CommandContext): Promise<string[]> {
  const holds_ = Object.entries(role.holds);
  for (const [grantId, hold] of holds_) if (await holds(ports, projectId, role.id, grantId, hold.value, null)) return [];
  // Closed on its stream, a holder that does not hold the role never will: `gone`, by the one release rule.
  return releasableHolders(holds_, async (grantId, hold) => ((await holds(ports, projectId, role.id, grantId, hold.value, aside(context))) ? 'holds' : 'gone'), ports.now());
}

/**
 * A role created before holds were recorded (custom-roles.ts `unrecordedHolds`): its holders from then
 * are found in the read models, once they have caught up with the whole log. That set only shrinks
 * (every later grant is a hold in the fold), so the look cannot miss a racing grant. Holders the fold
 * knows are left to `releasedHolds`.
 */
export async function unrecordedHolders(ports: PortsOf<'events' | 'projections' | 'waitForProjections'>, projectId: string, role: CustomRole): Promise<number> {
  if (!role.unrecordedHolds) return 0;
  // Not caught up in time: the look could miss a holder, so nothing is decided.
  if (!(await ports.waitForProjections(await ports.events.headPosition(), [apiKeysProjection.name, membersProjection.name]))) throw unavailable('The role’s holders cannot be looked up yet; retry');
  const known = new Set(Object.values(role.holds).map(({ value: h }) => `${h.kind}:${h.id}`));
  const members = await (await ports.projections.collection(membersProjection)).find({ filter: { projectId, role: role.id, status: { $in: ['invited', 'active'] } }, limit: 1000, withTotal: false });
  const keys = await (await ports.projections.collection(apiKeysProjection)).find({ filter: { projectId, customRoleId: role.id, revoked: false }, limit: 1000, withTotal: false });
  return members.items.filter((m) => !known.has(`member:${m.id}`)).length + keys.items.filter((k) => !known.has(`api-key:${k.id}`)).length;
}
