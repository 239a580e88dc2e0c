import { foldDocument } from '../../libs/subscriptions/src/document-projection';
import { streamRecorder } from '../../test/support/fixtures';
import { templatesProjection } from './templates.projection';

describe('templates projection', () => {
  const spec = { name: 'web', providerId: 'pv1', region: 'NYC', instanceType: 'vm.small', image: null, diskSizeGb: null, sshKeyId: null, accelerators: null, workerCount: 1, spot: false };
  const record = streamRecorder('template-t1', { templateId: 't1', projectId: 'p1' });

  it('reads a v1 template (tags as an object) as the {key, value} array ordered by key', () => {
    const doc = foldDocument(templatesProjection, [record('compute.InstanceTemplateCreated.v1', { ...spec, tags: { team: 'ml', env: 'prod' }, createdAt: 'x' })], 't1');
    expect(doc).toMatchObject({ id: 't1', projectId: 'p1', tags: [{ key: 'env', value: 'prod' }, { key: 'team', value: 'ml' }] });
  });

  it('writes a v2 template and removes it on delete', () => {
    const created = record('compute.InstanceTemplateCreated.v2', { ...spec, tags: [{ key: 'a', value: '1' }], createdAt: 'x' });
    expect(foldDocument(templatesProjection, [created], 't1')).toMatchObject({ id: 't1', name: 'web', tags: [{ key: 'a', value: '1' }] });
    expect(foldDocument(templatesProjection, [created, record('compute.InstanceTemplateDeleted.v1', { deletedAt: 'y' })], 't1')).toBeNull();
  });
});
