import { v7 as uuidv7 } from 'uuid';
import { handleCommand, type CommandContext } from '../../../../libs/eventstore/src/handle-command';
import { providerDecider } from '../../../../libs/domain/providers/provider.decider';
import { providerStream, type ProviderChanges, type ProviderKind } from '../../../../libs/domain/providers/events';
import type { CredentialVault, Credentials } from '../../../../libs/providers/src/credential-vault';
import { providersProjection, type ProviderDoc } from '../../../../projections/providers/providers.projection';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { createCredentialVault } from './credential-vault.factory';

export interface RegisterInput {
  name: ProviderKind;
  credentials: Credentials | null;
  region: string | null;
  enabled: boolean;
}

export interface UpdateInput {
  name?: ProviderKind;
  credentials?: Credentials;
  region?: string | null;
  enabled?: boolean;
}

/** Provider registrations (spec 2.11, 4.4): secrets go to the vault, events carry its reference. */
export class ProvidersService {
  constructor(
    private readonly platform: Platform,
    readonly vault: CredentialVault,
  ) {}

  collection() {
    return this.platform.projections.collection(providersProjection);
  }

  async register(projectId: string, input: RegisterInput, ctx: CommandContext): Promise<ProviderDoc> {
    const providerId = uuidv7();
    const credentialsRef = input.credentials ? await this.vault.put(projectId, input.credentials) : null;
    try {
      const result = await handleCommand(
        this.platform.events,
        providerStream(providerId),
        providerDecider,
        { type: 'RegisterProvider', providerId, projectId, name: input.name, enabled: input.enabled, region: input.region, credentialsRef, now: new Date().toISOString() },
        ctx,
      );
      return await this.readBack(providerId, result.position);
    } catch (err) {
      if (credentialsRef) await this.vault.delete(credentialsRef).catch(() => undefined);
      throw err;
    }
  }

  async update(projectId: string, providerId: string, input: UpdateInput, ctx: CommandContext): Promise<ProviderDoc> {
    const previous = await (await this.collection()).get(providerId);
    const changes: ProviderChanges = { name: input.name, enabled: input.enabled, region: input.region };
    if (input.credentials) changes.credentialsRef = await this.vault.put(projectId, input.credentials);
    let position: number | null;
    try {
      ({ position } = await handleCommand(this.platform.events, providerStream(providerId), providerDecider, { type: 'UpdateProvider', providerId, projectId, changes, now: new Date().toISOString() }, ctx));
    } catch (err) {
      if (changes.credentialsRef) await this.vault.delete(changes.credentialsRef).catch(() => undefined);
      throw err;
    }
    // The replaced secret is no longer referenced by the provider's current state.
    if (changes.credentialsRef && previous?.credentialsRef) await this.vault.delete(previous.credentialsRef).catch(() => undefined);
    return this.readBack(providerId, position);
  }

  async delete(projectId: string, providerId: string, ctx: CommandContext): Promise<void> {
    const previous = await (await this.collection()).get(providerId);
    const { position } = await handleCommand(this.platform.events, providerStream(providerId), providerDecider, { type: 'DeleteProvider', providerId, projectId, now: new Date().toISOString() }, ctx);
    await this.platform.waitForProjections(position, [providersProjection.name]);
    if (previous?.credentialsRef) await this.vault.delete(previous.credentialsRef).catch(() => undefined);
  }

  /** Decrypted credentials of a provider, for drivers only; never for responses or logs. */
  async credentialsOf(doc: ProviderDoc): Promise<Credentials | null> {
    return doc.credentialsRef ? this.vault.get(doc.credentialsRef) : null;
  }

  private async readBack(providerId: string, position: number | null): Promise<ProviderDoc> {
    await this.platform.waitForProjections(position, [providersProjection.name]);
    const doc = await this.platform.readBack(providersProjection, providerStream(providerId), providerId, position);
    if (!doc) throw new Error(`Provider ${providerId} was not written`);
    return doc;
  }
}

const services = new WeakMap<Platform, ProvidersService>();

/** The one ProvidersService (and vault) of a platform, shared by every feature that needs it. */
export function providersServiceFor(platform: Platform): ProvidersService {
  let s = services.get(platform);
  if (!s) services.set(platform, (s = new ProvidersService(platform, createCredentialVault(platform))));
  return s;
}
