import { overlappingNetwork, privateNetworks, privateNetworkStream } from '../../../../libs/domain/networking/private-network.resource';
import { overlappingReservations, privateNetworkRangesDecider, privateNetworkRangesStream } from '../../../../libs/domain/networking/private-network-ranges';
import { DomainError } from '../../../../libs/domain/shared/domain-error';
import { handleCommand, withoutIdempotencyKey } from '../../../../libs/eventstore/src/handle-command';
import { aggregateStream } from '../../../../libs/eventstore/src/aggregate-stream';
import { AppError } from '../../../../libs/application/src/errors';
import { foldDocument } from '../../../../libs/subscriptions/src/document-projection';
import { privateNetworksProjection } from '../../../../projections/private-networks/private-networks.projection';
import { jobResourceController } from '../common/job-resource.routes';
import { resolveTarget, targetBody, type TargetRef } from '../../../../usecases/networking/targets';
import { createFields } from './create-fields';
import type { PortsOf } from '../../../../libs/runtime/src/ports';

/** Private networks (spec 4.8, DECISIONS 14): a private range per region, attached to instances and servers; each a job. */
export const PrivateNetworksController = jobResourceController({
  resource: privateNetworks,
  projection: privateNetworksProjection,
  type: 'private-networks',
  path: '/v1/networking/private-networks',
  tag: 'Networking',
  permission: 'networking',
  capability: 'private-networks',
  summaries: { list: 'List the private networks of the project', get: 'Get a private network', create: 'Create a private network (202, a private-network.create job)', delete: 'Delete a private network (202, a private-network.delete job)' },
  body: privateNetworks.schema.omit({ targets: true }),
  // The region resolves in the provider's catalog (422); the range may not overlap another network of the project there (409).
  async prepare(input) {
    const { ports, projectId, pointerPrefix } = input;
    const fields = await createFields(privateNetworks.schema)(input);
    const { region } = fields;
    const { items } = await (await ports.projections.collection(privateNetworksProjection)).find({ filter: { projectId, region }, limit: 1000, withTotal: false });
    const taken = overlappingNetwork(fields.cidr, items);
    if (taken) throw new AppError('CONFLICT', `${fields.cidr} overlaps private network ${taken.id} (${taken.cidr}) in ${region}`, { source: { pointer: `${pointerPrefix}/cidr` } });
    return fields;
  },
  // The read model above answers at its lag; the region's range ledger orders racing creates (409 for the later one).
  async reserve({ ports, projectId, body, id, pointerPrefix, context }) {
    const stream = privateNetworkRangesStream(projectId, body.region);
    const reserve = (stale: string[]) =>
      handleCommand(ports.events, stream, privateNetworkRangesDecider, { type: 'ReserveRange', projectId, region: body.region, networkId: id, cidr: body.cidr, stale, now: ports.now() }, withoutIdempotencyKey(context), { attempts: 16 });
    try {
      // Refused: overlapping reservations whose network is gone (deleted, or never created) are released with this one.
      await reserve([]).catch(async (err) => (isConflict(err) ? reserve(await freeOverlaps(ports, stream, body.cidr, id)) : Promise.reject(err)));
    } catch (err) {
      throw isConflict(err) ? new AppError('CONFLICT', (err as Error).message, { source: { pointer: `${pointerPrefix}/cidr` } }) : err;
    }
  },
  actions: {
    attach: {
      summary: 'Attach the private network to an instance or server of the project in its region (202, a private-network.attach job)',
      body: targetBody,
      prepare: ({ ports, projectId, body, pointerPrefix }) => resolveTarget(ports, projectId, body as TargetRef, pointerPrefix),
    },
  },
});

/** A create appends its network right after its reservation; one still without a network after this long never will (a crash, a refusal). */
const ABANDONED_AFTER_MS = 30_000;

const isConflict = (err: unknown) => err instanceof DomainError && err.code === 'CONFLICT';

/** The reservations overlapping `cidr` (other than `networkId`'s) whose network holds its range no more. */
async function freeOverlaps(ports: PortsOf<'events' | 'now'>, stream: string, cidr: string, networkId: string): Promise<string[]> {
  const { state: ledger } = await aggregateStream(ports.events, stream, privateNetworkRangesDecider);
  const free: string[] = [];
  for (const [id, r] of overlappingReservations(ledger, cidr, networkId)) if (await rangeIsFree(ports, id, r.reservedAt)) free.push(id);
  return free;
}

/** Whether a reserved network holds its range no more: deleted, or never created. */
async function rangeIsFree(ports: PortsOf<'events' | 'now'>, networkId: string, reservedAt: string): Promise<boolean> {
  const events = await ports.events.readStream(privateNetworkStream(networkId));
  if (events.length === 0) return Date.parse(ports.now()) - Date.parse(reservedAt) > ABANDONED_AFTER_MS;
  return foldDocument(privateNetworksProjection, events, networkId) === null;
}
