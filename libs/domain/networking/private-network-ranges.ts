/**
 * DECISIONS 14: two private networks of a project in one region may not overlap. Each network is its
 * own stream, so the ranges of a project's region are reserved on one ledger stream first (the
 * reservation mechanism of shared/reservation.ts: the network is the holder, its CIDR the value):
 * two racing creates are ordered by its revision, and the second sees the first's range. What is
 * this ledger's own: its event types (as recorded) and the overlap test.
 */
import { overlaps } from './cidr';
import { reservationLedger, type Reserve } from '../shared/reservation';
import type { DomainEvent } from '../shared/domain-error';

export const privateNetworkRangesStream = (projectId: string, region: string) => `pnetranges-${projectId}-${region}`;

type Scope = { projectId: string; region: string };
type Base = { projectId: string; region: string; networkId: string };
export type RangeReserved = DomainEvent<'networking.PrivateNetworkRangeReserved.v1', Base & { cidr: string; reservedAt: string }>;
export type RangeReleased = DomainEvent<'networking.PrivateNetworkRangeReleased.v1', Base & { cidr: string; releasedAt: string }>;
export type RangeEvent = RangeReserved | RangeReleased;
export const PrivateNetworkRangeEventTypes = { Reserved: 'networking.PrivateNetworkRangeReserved.v1', Released: 'networking.PrivateNetworkRangeReleased.v1' } as const satisfies Record<string, RangeEvent['type']>;

/** Reserve a CIDR (`value`) for a network (`holderId`) in a project's region (`scope`). */
export type ReserveRange = Reserve<string, Scope>;

export const privateNetworkRangesDecider = reservationLedger<string, Scope, RangeEvent>({
  // Version 2: the state is the shared reservation shape ({ value, reservedAt } by network).
  snapshot: { name: 'private-network-ranges', version: 2, every: 100 },
  conflicts: overlaps,
  describe: (id, held, { value, scope }) => `${value} overlaps private network ${id} (${held.value}) in ${scope.region}`,
  reserved: (scope, networkId, r) => ({ type: 'networking.PrivateNetworkRangeReserved.v1', data: { ...scope, networkId, cidr: r.value, reservedAt: r.reservedAt } }),
  released: (scope, networkId, held, at) => ({ type: 'networking.PrivateNetworkRangeReleased.v1', data: { ...scope, networkId, cidr: held.value, releasedAt: at } }),
  read: (event) =>
    event.type === 'networking.PrivateNetworkRangeReserved.v1' ? { holderId: event.data.networkId, reservation: { value: event.data.cidr, reservedAt: event.data.reservedAt } } : { holderId: event.data.networkId, reservation: null },
});
