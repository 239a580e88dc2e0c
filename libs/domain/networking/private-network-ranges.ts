/**
 * DECISIONS 14: two private networks of a project in one region may not overlap. Each network is its
 * own stream, so the ranges of a project's region are reserved on one ledger stream first: two racing
 * creates are ordered by its revision, and the second sees the first's range. The network's own
 * create follows; a range whose network was deleted, or whose create never happened (a crash or a
 * refusal between the two appends), is released by the next reservation that meets it, once the
 * caller has proved so (`stale`).
 */
import { DomainError, type Decider, type DomainEvent } from '../shared/domain-error';
import { overlaps } from './cidr';

export const privateNetworkRangesStream = (projectId: string, region: string) => `pnetranges-${projectId}-${region}`;

type Base = { projectId: string; region: string; networkId: string };
export type RangeReserved = DomainEvent<'networking.PrivateNetworkRangeReserved.v1', Base & { cidr: string; reservedAt: string }>;
export type RangeReleased = DomainEvent<'networking.PrivateNetworkRangeReleased.v1', Base & { cidr: string; releasedAt: string }>;
export type RangeEvent = RangeReserved | RangeReleased;
export const PrivateNetworkRangeEventTypes = { Reserved: 'networking.PrivateNetworkRangeReserved.v1', Released: 'networking.PrivateNetworkRangeReleased.v1' } as const satisfies Record<string, RangeEvent['type']>;

export interface Reservation {
  cidr: string;
  reservedAt: string;
}
export type RangesState = { reserved: Record<string, Reservation> };

/**
 * Reserve `cidr` for `networkId`. `stale`: reserved networks the caller proved hold their range no
 * more (deleted, or never created); they are released with this reservation. Any other overlapping
 * reservation refuses it (409 CONFLICT).
 */
export type ReserveRange = Base & { type: 'ReserveRange'; cidr: string; stale: string[]; now: string };
export type RangeCommand = ReserveRange;

/** The reservations of `state` that overlap `cidr`, other than `networkId`'s own. */
export const overlappingReservations = (state: RangesState, cidr: string, networkId: string): Array<[string, Reservation]> =>
  Object.entries(state.reserved).filter(([id, r]) => id !== networkId && overlaps(r.cidr, cidr));

export const privateNetworkRangesDecider: Decider<RangeCommand, RangeEvent, RangesState> = {
  snapshot: { name: 'private-network-ranges', version: 1, every: 100 },
  initialState: () => ({ reserved: {} }),
  evolve: (state, event) => {
    const reserved = { ...state.reserved };
    if (event.type === 'networking.PrivateNetworkRangeReserved.v1') reserved[event.data.networkId] = { cidr: event.data.cidr, reservedAt: event.data.reservedAt };
    else delete reserved[event.data.networkId];
    return { reserved };
  },
  decide: (command, state) => {
    const { projectId, region, networkId, cidr, now } = command;
    if (state.reserved[networkId]) return [];
    const conflicts = overlappingReservations(state, cidr, networkId);
    const blocking = conflicts.find(([id]) => !command.stale.includes(id));
    if (blocking) throw new DomainError('CONFLICT', `${cidr} overlaps private network ${blocking[0]} (${blocking[1].cidr}) in ${region}`);
    const released = conflicts.map(([id, r]): RangeReleased => ({ type: 'networking.PrivateNetworkRangeReleased.v1', data: { projectId, region, networkId: id, cidr: r.cidr, releasedAt: now } }));
    return [...released, { type: 'networking.PrivateNetworkRangeReserved.v1', data: { projectId, region, networkId, cidr, reservedAt: now } }];
  },
};
