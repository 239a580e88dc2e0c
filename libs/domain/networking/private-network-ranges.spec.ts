import { deciderSpec } from '../shared/decider-spec';
import { privateNetworkRangesDecider, type RangeEvent, type ReserveRange } from './private-network-ranges';

const given = deciderSpec(privateNetworkRangesDecider);
const now = '2026-01-01T00:00:00.000Z';
const base = { projectId: 'p1', region: 'us-east-1' };
const reserve = (networkId: string, cidr: string, releasable: string[] = []): ReserveRange => ({ type: 'Reserve', scope: base, holderId: networkId, value: cidr, releasable, now });
const reserved = (networkId: string, cidr: string): RangeEvent => ({ type: 'networking.PrivateNetworkRangeReserved.v1', data: { ...base, networkId, cidr, reservedAt: now } });
const released = (networkId: string, cidr: string): RangeEvent => ({ type: 'networking.PrivateNetworkRangeReleased.v1', data: { ...base, networkId, cidr, releasedAt: now } });

describe('private network range ledger', () => {
  it('reserves a range that overlaps none, and refuses one that overlaps a reservation (409)', () => {
    given([]).when(reserve('a', '10.1.0.0/16')).then([reserved('a', '10.1.0.0/16')]);
    given([reserved('a', '10.1.0.0/16')]).when(reserve('b', '10.2.0.0/16')).then([reserved('b', '10.2.0.0/16')]);
    given([reserved('a', '10.1.0.0/16')]).when(reserve('b', '10.1.128.0/17')).thenThrows('CONFLICT', /overlaps private network a \(10\.1\.0\.0\/16\)/);
    given([reserved('a', '10.1.128.0/17')]).when(reserve('b', '10.0.0.0/8')).thenThrows('CONFLICT');
  });

  it('releases the overlapping reservations the caller proved free, with the new reservation, and no others', () => {
    const history = [reserved('gone', '10.1.0.0/16'), reserved('live', '10.2.0.0/16')];
    given(history).when(reserve('b', '10.1.0.0/24', ['gone'])).then([released('gone', '10.1.0.0/16'), reserved('b', '10.1.0.0/24')]);
    given(history).when(reserve('b', '10.0.0.0/8', ['gone'])).thenThrows('CONFLICT', /live/);
    given([...history, released('gone', '10.1.0.0/16')]).when(reserve('c', '10.1.0.0/16')).then([reserved('c', '10.1.0.0/16')]);
  });

  it("is a no-op for a network's own repeated reservation", () => {
    given([reserved('a', '10.1.0.0/16')]).when(reserve('a', '10.1.0.0/16')).thenNothingHappens();
  });
});
