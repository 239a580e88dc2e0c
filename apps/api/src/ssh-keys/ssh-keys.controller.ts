import { Controller, Inject, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resourceSchema } from '../../../../libs/http/src/envelope';
import type { ListQuery } from '../../../../libs/http/src/list-query';
import { ApiRoute, CurrentPrincipal, Parsed } from '../../../../libs/http/src/route';
import { SSH_KEY_ALGORITHMS, parseOpenSshPublicKey, sshKeyDecider, sshKeyIdFor, sshKeyStream } from '../../../../libs/domain/ssh-keys';
import { sshKeysProjection, type SshKeyDoc } from '../../../../projections/ssh-keys/ssh-keys.projection';
import type { Platform } from '../../../../libs/runtime/src/platform';
import { PLATFORM } from '../tokens';
import { requireProjectProvider } from '../common/project-provider';
import { ResourceLifecycle, nowIso, projectIdOf, pathId } from '../common/resource-lifecycle';

export const sshKeyAttributes = z.object({
  name: z.string(),
  publicKey: z.string().describe('OpenSSH public key line: `<algorithm> <base64>[ <comment>]`'),
  fingerprint: z.string().describe('SHA256:<unpadded base64>, as `ssh-keygen -l` prints it'),
  fingerprintMd5: z.string().describe('Legacy MD5 fingerprint, colon-separated hex'),
  algorithm: z.enum(SSH_KEY_ALGORITHMS as [string, ...string[]]),
  bits: z.number().int(),
  providerId: z.string(),
  createdAt: z.string(),
});

const providerQuery = z.object({ providerId: z.string().min(1).max(64).describe('The provider the keys belong to (required)') });
type ProviderQuery = z.infer<typeof providerQuery>;

const createBody = z.object({
  name: z.string().min(1).max(64),
  publicKey: z
    .string()
    .max(16384)
    .superRefine((value, ctx) => {
      const parsed = parseOpenSshPublicKey(value);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `publicKey is not a valid OpenSSH public key: ${parsed.reason}` });
    })
    .describe(`OpenSSH public key (${SSH_KEY_ALGORITHMS.join(', ')}; RSA at least 2048 bits)`),
});

const keyParams = z.object({ keyId: pathId });

const attributes = (doc: SshKeyDoc) => ({
  name: doc.name,
  publicKey: doc.publicKey,
  fingerprint: doc.fingerprint,
  fingerprintMd5: doc.fingerprintMd5,
  algorithm: doc.algorithm,
  bits: doc.bits,
  providerId: doc.providerId,
  createdAt: doc.createdAt,
});

/** SSH keys per provider (spec 4.7). A fingerprint is unique per provider within a project. */
@Controller()
export class SshKeysController {
  private readonly keys;

  constructor(@Inject(PLATFORM) private readonly platform: Platform) {
    this.keys = new ResourceLifecycle(platform, { type: 'ssh-keys', label: 'SSH key', projection: sshKeysProjection, stream: sshKeyStream, decider: sshKeyDecider, attributes });
  }

  @ApiRoute({
    method: 'GET',
    path: '/v1/ssh-keys',
    summary: "List a provider's SSH keys in the project",
    tag: 'SSH keys',
    auth: 'project',
    permission: 'ssh-keys:read',
    list: { type: 'ssh-keys', sortFields: ['createdAt', 'name'] },
    query: providerQuery,
    responses: { 200: collectionSchema('ssh-keys', sshKeyAttributes) },
  })
  async list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: ListQuery<ProviderQuery>) {
    await requireProjectProvider(this.platform, projectIdOf(principal), list.filters.providerId);
    return this.keys.list(principal, list, { providerId: list.filters.providerId });
  }

  @ApiRoute({
    method: 'POST',
    path: '/v1/ssh-keys',
    summary: 'Add an SSH public key to a provider (409 CONFLICT when its fingerprint is already there)',
    tag: 'SSH keys',
    auth: 'project',
    permission: 'ssh-keys:write',
    type: 'ssh-keys',
    query: providerQuery,
    body: createBody,
    idempotent: true,
    responses: { 201: resourceSchema('ssh-keys', sshKeyAttributes) },
  })
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() parsed: { query: ProviderQuery; body: z.infer<typeof createBody> }) {
    const projectId = projectIdOf(principal);
    const { providerId } = parsed.query;
    await requireProjectProvider(this.platform, projectId, providerId, { requireEnabled: true });
    const key = parseOpenSshPublicKey(parsed.body.publicKey);
    if (!key.ok) throw new Error('unreachable: the body schema validated the key');
    const { normalized, algorithm, bits, fingerprint, fingerprintMd5 } = key.key;
    const keyId = sshKeyIdFor(projectId, providerId, fingerprint);
    return this.keys.create(req, principal, keyId, {
      type: 'AddSshKey',
      keyId,
      projectId,
      providerId,
      name: parsed.body.name,
      publicKey: normalized,
      algorithm,
      bits,
      fingerprint,
      fingerprintMd5,
      now: nowIso(),
    });
  }

  @ApiRoute({
    method: 'DELETE',
    path: '/v1/ssh-keys/{keyId}',
    summary: "Delete an SSH key from a provider",
    tag: 'SSH keys',
    auth: 'project',
    permission: 'ssh-keys:write',
    params: keyParams,
    query: providerQuery,
    responses: { 204: null },
  })
  async delete(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed() parsed: { query: ProviderQuery; params: z.infer<typeof keyParams> }) {
    const projectId = projectIdOf(principal);
    const { providerId } = parsed.query;
    await requireProjectProvider(this.platform, projectId, providerId);
    const { keyId } = parsed.params;
    await this.keys.get(principal, keyId, { providerId });
    await this.keys.execute(req, principal, keyId, { type: 'DeleteSshKey', keyId, projectId, providerId, now: nowIso() });
  }
}
