import type { DocumentProjection } from '../../../../libs/subscriptions/src/document-projection';
import { sshKeysProjection } from '../../../../projections/ssh-keys/ssh-keys.projection';
import type { Feature } from '../common/resource-lifecycle';
import { SshKeysController } from './ssh-keys.controller';

/** SSH keys (spec 4.7): wire the controllers into AppModule and the projections into PROJECTIONS. */
export const sshKeysFeature: Feature = {
  controllers: [SshKeysController],
  projections: [sshKeysProjection as unknown as DocumentProjection],
};
