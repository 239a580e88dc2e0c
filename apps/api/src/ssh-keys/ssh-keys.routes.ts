import { z } from 'zod';
import { SSH_KEY_ALGORITHMS, openSshPublicKey, parseOpenSshPublicKey, sshKeyIdFor, sshKeys } from '../../../../libs/domain/ssh-keys';
import { sshKeysProjection } from '../../../../projections/ssh-keys/ssh-keys.projection';
import { requireProjectProvider } from '../../../../usecases/providers/project-provider';
import { simpleResourceController } from '../common/simple-resource.routes';

/** SSH keys per provider (spec 4.7). A fingerprint is unique per provider within a project. */
export const SshKeysController = simpleResourceController({
  resource: sshKeys,
  projection: sshKeysProjection,
  type: 'ssh-keys',
  path: '/v1/ssh-keys',
  idParam: 'keyId',
  tag: 'SSH keys',
  permission: 'ssh-keys',
  routes: {
    list: "List a provider's SSH keys in the project",
    create: 'Add an SSH public key to a provider (409 CONFLICT when its fingerprint is already there)',
    delete: 'Delete an SSH key from a provider',
  },
  scope: {
    query: z.object({ providerId: z.string().min(1).max(64).describe('The provider the keys belong to (required)') }),
    check: async (ports, projectId, { providerId }, op) => void (await requireProjectProvider(ports, projectId, providerId, { requireEnabled: op === 'create' })),
  },
  body: z.object({
    name: z.string().min(1).max(64),
    publicKey: openSshPublicKey.describe(`OpenSSH public key (${SSH_KEY_ALGORITHMS.join(', ')}; RSA at least 2048 bits)`),
  }),
  // The key is stored normalized, with its fingerprints; its id is derived from the fingerprint.
  async prepare({ projectId, body, query }) {
    const parsed = parseOpenSshPublicKey(body.publicKey);
    if (!parsed.ok) throw new Error('unreachable: the body schema validated the key');
    const { normalized, algorithm, bits, fingerprint, fingerprintMd5 } = parsed.key;
    const fields = { providerId: query.providerId, name: body.name, publicKey: normalized, algorithm, bits, fingerprint, fingerprintMd5 };
    return { id: sshKeyIdFor(projectId, query.providerId, fingerprint), fields };
  },
});
