import { deciderSpec } from '../shared/decider-spec';
import type { CreateResource, DeleteResource } from '../shared/simple-resource';
import { MAX_TAGS } from '../shared/tags';
import { instanceTemplateDecider, instanceTemplateSchema, type InstanceTemplateFields } from './instance-template.resource';

const given = deciderSpec(instanceTemplateDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const fields: InstanceTemplateFields = {
  name: 'gpu-worker',
  providerId: 'pv1',
  region: 'us-east-1',
  instanceType: 'pc-g5-xlarge',
  image: 'pc-ubuntu-24-04-x64-lts',
  diskSizeGb: 200,
  sshKeyId: null,
  accelerators: 'A100:8',
  workerCount: 2,
  spot: true,
  tags: [{ key: 'team', value: 'ml' }],
};
const create = (over: Partial<InstanceTemplateFields> = {}): CreateResource<InstanceTemplateFields> => ({ type: 'CreateResource', id: 't1', projectId: 'p1', fields: { ...fields, ...over }, now });
const created = (over: Partial<InstanceTemplateFields> = {}) => ({ type: 'compute.InstanceTemplateCreated.v2', data: { ...fields, ...over, templateId: 't1', projectId: 'p1', createdAt: now } });
const createdV1 = { type: 'compute.InstanceTemplateCreated.v1', data: { ...fields, tags: { team: 'ml' }, templateId: 't1', projectId: 'p1', createdAt: now } };
const deleted = { type: 'compute.InstanceTemplateDeleted.v1', data: { templateId: 't1', projectId: 'p1', deletedAt: later } };
const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${String(i).padStart(3, '0')}`, value: 'v' }));
const del = (projectId = 'p1'): DeleteResource => ({ type: 'DeleteResource', id: 't1', projectId, scope: {}, now: later });

describe('instance template decider', () => {
  describe('create', () => {
    it('records the whole launch spec', () => {
      given([]).when(create()).then([created()]);
    });

    it(`accepts up to ${MAX_TAGS} tags and one worker`, () => {
      given([]).when(create({ tags: tags(MAX_TAGS), workerCount: 1 })).then([created({ tags: tags(MAX_TAGS), workerCount: 1 })]);
    });

    it('refuses fewer than one worker, too many tags and a malformed accelerator', () => {
      given([]).when(create({ workerCount: 0 })).thenThrows('BAD_REQUEST', /workerCount/);
      given([]).when(create({ tags: tags(MAX_TAGS + 1) })).thenThrows('BAD_REQUEST', /tags/);
      given([]).when(create({ accelerators: 'A100' })).thenThrows('BAD_REQUEST', /accelerators/);
    });

    it('refuses an id that exists, deleted or not, also when recorded as v1', () => {
      given([created()]).when(create()).thenThrows('CONFLICT');
      given([created(), deleted]).when(create()).thenThrows('CONFLICT');
      given([createdV1]).when(create()).thenThrows('CONFLICT');
    });
  });

  describe('delete', () => {
    it('deletes an active template, also one recorded as v1', () => {
      given([created()]).when(del()).then([deleted]);
      given([createdV1]).when(del()).then([deleted]);
    });

    it("answers NOT_FOUND for a missing, deleted or other project's template", () => {
      given([]).when(del()).thenThrows('NOT_FOUND');
      given([created(), deleted]).when(del()).thenThrows('NOT_FOUND');
      given([created()]).when(del('p2')).thenThrows('NOT_FOUND');
    });
  });

  it('takes tags in either request form and holds them ordered by key', () => {
    const body = { name: 'a', providerId: 'p', region: 'r', instanceType: 't' };
    const fromObject = instanceTemplateSchema.parse({ ...body, tags: { b: '2', a: '1' } });
    const fromArray = instanceTemplateSchema.parse({ ...body, tags: [{ key: 'b', value: '2' }, { key: 'a', value: '1' }] });
    expect(fromObject.tags).toEqual([{ key: 'a', value: '1' }, { key: 'b', value: '2' }]);
    expect(fromArray.tags).toEqual(fromObject.tags);
    expect(instanceTemplateSchema.safeParse({ ...body, tags: [{ key: 'a', value: '1' }, { key: 'a', value: '2' }] }).success).toBe(false);
  });
});
