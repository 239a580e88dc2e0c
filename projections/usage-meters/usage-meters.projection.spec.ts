import type { RecordedEvent } from '../../libs/eventstore/src/event-store.port';
import { costIn } from '../../libs/domain/invoicing/usage';
import { foldDocument } from '../../libs/subscriptions/src/document-projection';
import { instanceSpec } from '../../test/support/fixtures';
import { usageMetersProjection } from './usage-meters.projection';

const t = (h: number) => new Date(Date.parse('2026-11-10T08:00:00.000Z') + h * 3_600_000).toISOString();
let position = 0;
const recorded = (streamId: string, type: string, data: Record<string, unknown>): RecordedEvent => ({ id: `e${++position}`, type, streamId, revision: position, position, data, metadata: { schemaVersion: 1, projectId: 'p1' }, recordedAt: t(99) });

describe('usage meters: runs folded from the compute events', () => {
  it('meters an instance from provisioned to stopped, and again from started, at its recorded plan price', () => {
    const s = 'instance-i1';
    const events = [
      recorded(s, 'compute.InstanceRequested.v1', { ...instanceSpec({ projectId: 'p1', hourlyPriceCents: 12 }), instanceId: 'i1', jobId: 'j1', requestedAt: t(0) }),
      recorded(s, 'compute.InstanceProvisioned.v1', { instanceId: 'i1', jobId: 'j1', operation: 'create', externalId: 'x', hostname: 'h', ipv4: '1.1.1.1', ipv6: null, sshUser: 'root', sshPort: 22, at: t(0.1) }),
      recorded(s, 'compute.InstanceStarted.v1', { instanceId: 'i1', jobId: 'j2', operation: 'restart', at: t(0.5) }), // a restart keeps the run
      recorded(s, 'compute.InstanceStopped.v1', { instanceId: 'i1', jobId: 'j3', at: t(2.6) }),
      recorded(s, 'compute.InstanceStarted.v1', { instanceId: 'i1', jobId: 'j4', operation: 'start', at: t(10) }),
    ];
    const doc = foldDocument(usageMetersProjection, events, 'i1')!;
    expect(doc).toMatchObject({ projectId: 'p1', resourceType: 'instance', hourlyPriceCents: 12, running: true, firstRunAt: t(0.1) });
    expect(doc.runs).toEqual([
      { from: t(0.1), to: t(2.6), hourlyPriceCents: 12 },
      { from: t(10), to: null, hourlyPriceCents: 12 },
    ]);
    // 2.5 h → 3 started hours; the open run until 11.5 h → 2 more
    expect(costIn(doc.runs, 0, Date.parse(t(48)), Date.parse(t(11.5)))).toEqual({ hours: 5, costCents: 60 });
  });

  it('meters a server from activated to powered off, cut and repriced by a plan change', () => {
    const s = 'server-s1';
    const spec = { projectId: 'p1', name: 'db', plan: { slug: 'small', name: 'Small' }, hourlyPriceCents: 100 };
    const events = [
      recorded(s, 'compute.ServerRequested.v1', { ...spec, serverId: 's1', jobId: 'j1', requestedAt: t(0), restoredFromBackup: null }),
      recorded(s, 'compute.ServerActivated.v1', { serverId: 's1', jobId: 'j1', operation: 'create', externalId: 'x', ipv4: null, at: t(1) }),
      recorded(s, 'compute.ServerMigrationRequested.v1', { serverId: 's1', jobId: 'j2', from: 'active', fromPlan: spec.plan, plan: { slug: 'large', name: 'Large' }, hourlyPriceCents: 300, requestedAt: t(2.5), requestedBy: 'u' }),
      recorded(s, 'compute.ServerActivated.v1', { serverId: 's1', jobId: 'j2', operation: 'migrate', externalId: 'x', ipv4: null, at: t(3) }),
      recorded(s, 'compute.ServerPoweredOff.v1', { serverId: 's1', jobId: 'j3', at: t(4) }),
    ];
    const doc = foldDocument(usageMetersProjection, events, 's1')!;
    expect(doc).toMatchObject({ resourceType: 'server', plan: 'large', hourlyPriceCents: 300, running: false });
    expect(doc.runs).toEqual([
      { from: t(1), to: t(2.5), hourlyPriceCents: 100 },
      { from: t(2.5), to: t(4), hourlyPriceCents: 300 },
    ]);
    expect(costIn(doc.runs, 0, Date.parse(t(48)), Date.parse(t(48)))).toEqual({ hours: 4, costCents: 2 * 100 + 2 * 300 });
  });

  it('meters a server recorded before prices were kept at 0', () => {
    const doc = foldDocument(usageMetersProjection, [recorded('server-s2', 'compute.ServerRequested.v1', { projectId: 'p1', name: 'old', plan: { slug: 'x', name: 'X' }, serverId: 's2', jobId: 'j', requestedAt: t(0), restoredFromBackup: null })], 's2')!;
    expect(doc.hourlyPriceCents).toBe(0);
  });
});
