import { deciderSpec } from '../shared/decider-spec';
import { jobResourceDecider, type JobResourceCommand } from '../shared/job-resource';
import { snapshots } from './snapshot.resource';

const given = deciderSpec(jobResourceDecider(snapshots));
const at = '2026-01-01T00:00:00.000Z';
const fields = { volumeId: 'v1', name: 'nightly', sizeGb: 20, region: 'us-east-1', tags: [] as Array<{ key: string; value: string }> };
type Command = JobResourceCommand<typeof fields>;

const register: Command = { type: 'ImportResource', id: 's1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, externalId: 'snap-0abc', attributes: {}, now: at };
const imported = { type: 'storage.SnapshotImported.v1', data: { id: 's1', projectId: 'p1', providerId: 'pv1', providerKind: 'provider_publiccloud', fields, externalId: 'snap-0abc', attributes: {}, importedAt: at } };

describe('snapshot decider (records only: registered by an operator or reported by sync)', () => {
  it('records a snapshot that exists at the provider, in its final state with the provider id', () => {
    given([]).when(register).then([imported]);
    const state = jobResourceDecider(snapshots).evolve({ status: 'none' }, imported);
    expect(state).toMatchObject({ status: 'available', externalId: 'snap-0abc', fields });
  });

  it('refuses fields outside the schema and a second record of the same id', () => {
    given([]).when({ ...register, fields: { ...fields, sizeGb: 0 } }).thenThrows('BAD_REQUEST', /sizeGb/);
    given([]).when({ ...register, fields: { ...fields, volumeId: '' } }).thenThrows('BAD_REQUEST', /volumeId/);
    given([imported]).when(register).thenThrows('CONFLICT');
  });
});
