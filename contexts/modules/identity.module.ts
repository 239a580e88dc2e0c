import { IdentityEventTypes } from '../../libs/domain/identity/events';
import { CustomRoleEventTypes, RoleHoldEventTypes } from '../../libs/domain/identity/custom-roles';
import { MemberGrantEventTypes, MembershipEventTypes } from '../../libs/domain/identity/membership';
import { ProviderKeyEventTypes } from '../../libs/domain/identity/provider-keys';
import { apiKeysProjection } from '../../projections/api-keys/api-keys.projection';
import { customRolesProjection } from '../../projections/custom-roles/custom-roles.projection';
import { membersProjection } from '../../projections/members/members.projection';
import { projectsProjection } from '../../projections/projects/projects.projection';
import { providerKeysProjection } from '../../projections/provider-keys/provider-keys.projection';
import { invitationMailKind, invitationMailsOf } from '../../sagas/invitation-mail/invitation-mailer';
import { EffectScheduler } from '../../libs/runtime/src/outbox/outbox';
import { KeyHasher } from '../../libs/runtime/src/key-hasher';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Projects, API keys, members and invitations, custom roles and provider API keys (spec 4.11). */
export const identityModule: ContextModule = {
  name: 'identity',
  projections: [apiKeysProjection, projectsProjection, membersProjection, customRolesProjection, providerKeysProjection],
  processManagers: (rt) => {
    const hasher = KeyHasher.fromConfig(rt.config.dataDir, rt.config.apiKeyPepper);
    const publicUrl = rt.config.publicUrl ?? `https://localhost:${rt.config.port}`;
    rt.outbox.register(invitationMailKind({ events: rt.events, send: (m) => rt.mailer.send(m), keyed: (t) => hasher.hash(t), publicUrl, now: () => new Date(rt.clock.now()).toISOString() }));
    return [new EffectScheduler('saga:invitation-mail', rt.outbox, invitationMailsOf)];
  },
  eventTypes: [...Object.values(IdentityEventTypes), ...Object.values(MembershipEventTypes), ...Object.values(CustomRoleEventTypes), ...Object.values(RoleHoldEventTypes), ...Object.values(MemberGrantEventTypes), ...Object.values(ProviderKeyEventTypes)],
  // Custom-role holds are the role stream's bookkeeping (a role in use cannot be deleted), not news.
  unpublished: [...Object.values(RoleHoldEventTypes), ...Object.values(MemberGrantEventTypes), IdentityEventTypes.ApiKeyGrantVoided],
};
