import { overlappingNetwork, privateNetworks } from '../../libs/domain/networking/private-network.resource';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { AppError } from '../../libs/application/src/errors';
import { privateNetworksProjection } from '../../projections/private-networks/private-networks.projection';
import type { JobResourceUseCase } from '../resources/job-resources';
import { createFields } from './create-fields';
import { reservePrivateNetworkRange } from './private-network-ranges';
import { targetLookups } from './targets';

/** Private networks (spec 4.8, DECISIONS 14): a private range per region, attached to instances and servers; each a job. */
export const privateNetworkResource = {
  resource: privateNetworks,
  projection: privateNetworksProjection,
  type: 'private-networks',
  capability: 'private-networks',
  // The region resolves in the provider's catalog (422); the range may not overlap another network of the project there (409).
  async prepare(input) {
    const { ports, projectId } = input;
    const fields = await createFields(privateNetworks.schema)(input);
    const { region } = fields;
    const { items } = await (await ports.projections.collection(privateNetworksProjection)).find({ filter: { projectId, region }, limit: 1000, withTotal: false });
    const taken = overlappingNetwork(fields.cidr, items);
    if (taken) throw new AppError('CONFLICT', `${fields.cidr} overlaps private network ${taken.id} (${taken.cidr}) in ${region}`, { source: { pointer: '/cidr' } });
    return fields;
  },
  // The read model above answers at its lag; the region's range ledger orders racing creates (409 for the later one).
  async reserve({ ports, projectId, body, id, context }) {
    try {
      await reservePrivateNetworkRange(ports, projectId, body.region, id, body.cidr, context);
    } catch (err) {
      throw err instanceof DomainError && err.code === 'CONFLICT' ? new AppError('CONFLICT', err.message, { source: { pointer: '/cidr' } }) : err;
    }
  },
  actions: {
    // The target: an instance or server of the project in the network's region that still exists (404 on the field).
    attach: targetLookups,
  },
} satisfies JobResourceUseCase<typeof privateNetworks.schema>;
