/**
 * A private network's range reservation (DECISIONS 14), made before the network's own create: on
 * the region's ledger (libs/domain/networking/private-network-ranges.ts), at its revision. What is
 * the network's own: its stream says whether it still holds the range (deleted: it folds to nothing;
 * never created: empty, which the timeout rule lets go after RESERVATION_TIMEOUT_MS).
 */
import { conflictingReservations } from '../../libs/domain/shared/reservation';
import { overlaps } from '../../libs/domain/networking/cidr';
import { privateNetworkRangesDecider, privateNetworkRangesStream, type ReserveRange } from '../../libs/domain/networking/private-network-ranges';
import { privateNetworkStream } from '../../libs/domain/networking/private-network.resource';
import type { CommandContext } from '../../libs/eventstore/src/handle-command';
import { foldDocument } from '../../libs/subscriptions/src/document-projection';
import type { PortsOf } from '../../libs/runtime/src/ports';
import { privateNetworksProjection } from '../../projections/private-networks/private-networks.projection';
import { reserve } from '../reservations';

/** Creates in one region race on its ledger; each round commits one of them. */
const RANGE_ATTEMPTS = 16;

/** Reserves `cidr` for network `networkId` in `region`; a range it overlaps whose network holds it refuses it (DomainError CONFLICT). */
export async function reservePrivateNetworkRange(ports: PortsOf<'events' | 'now'>, projectId: string, region: string, networkId: string, cidr: string, context: CommandContext): Promise<void> {
  const ledger = { stream: privateNetworkRangesStream(projectId, region), decider: privateNetworkRangesDecider, attempts: RANGE_ATTEMPTS };
  await reserve(ports, ledger, (releasable, now): ReserveRange => ({ type: 'Reserve', scope: { projectId, region }, holderId: networkId, value: cidr, releasable, now }), context, {
    conflicting: (state) => conflictingReservations(state.reserved, networkId, cidr, overlaps),
    seen: async (id) => {
      const events = await ports.events.readStream(privateNetworkStream(id));
      if (events.length === 0) return 'unseen';
      return foldDocument(privateNetworksProjection, events, id) === null ? 'gone' : 'holds';
    },
  });
}
