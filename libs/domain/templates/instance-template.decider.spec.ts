import { deciderSpec } from '../shared/decider-spec';
import type { InstanceTemplateEvent, InstanceTemplateSpec } from './events';
import { instanceTemplateDecider, MAX_TEMPLATE_TAGS, type CreateInstanceTemplate } from './instance-template.decider';

const given = deciderSpec(instanceTemplateDecider);
const now = '2026-01-01T00:00:00.000Z';
const later = '2026-01-02T00:00:00.000Z';
const spec: InstanceTemplateSpec = {
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
  tags: { team: 'ml' },
};
const create = (over: Partial<InstanceTemplateSpec> = {}): CreateInstanceTemplate => ({ type: 'CreateInstanceTemplate', templateId: 't1', projectId: 'p1', spec: { ...spec, ...over }, now });
const created: InstanceTemplateEvent = { type: 'compute.InstanceTemplateCreated.v1', data: { ...spec, templateId: 't1', projectId: 'p1', createdAt: now } };
const deleted: InstanceTemplateEvent = { type: 'compute.InstanceTemplateDeleted.v1', data: { templateId: 't1', projectId: 'p1', deletedAt: later } };
const tags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const del = (projectId = 'p1') => ({ type: 'DeleteInstanceTemplate', templateId: 't1', projectId, now: later }) as const;

describe('instance template decider', () => {
  describe('CreateInstanceTemplate', () => {
    it('records the whole launch spec', () => {
      given([]).when(create()).then([created]);
    });

    it(`accepts up to ${MAX_TEMPLATE_TAGS} tags and one worker`, () => {
      given([])
        .when(create({ tags: tags(MAX_TEMPLATE_TAGS), workerCount: 1 }))
        .then([{ type: 'compute.InstanceTemplateCreated.v1', data: { ...spec, tags: tags(MAX_TEMPLATE_TAGS), workerCount: 1, templateId: 't1', projectId: 'p1', createdAt: now } }]);
    });

    it('refuses fewer than one worker and too many tags', () => {
      given([]).when(create({ workerCount: 0 })).thenThrows('BAD_REQUEST', /workerCount/);
      given([]).when(create({ tags: tags(MAX_TEMPLATE_TAGS + 1) })).thenThrows('BAD_REQUEST', /tags/);
    });

    it('refuses an id that exists, deleted or not', () => {
      given([created]).when(create()).thenThrows('CONFLICT');
      given([created, deleted]).when(create()).thenThrows('CONFLICT');
    });
  });

  describe('DeleteInstanceTemplate', () => {
    it('deletes an active template', () => {
      given([created]).when(del()).then([deleted]);
    });

    it('answers NOT_FOUND for a missing, deleted or other project\'s template', () => {
      given([]).when(del()).thenThrows('NOT_FOUND');
      given([created, deleted]).when(del()).thenThrows('NOT_FOUND');
      given([created]).when(del('p2')).thenThrows('NOT_FOUND');
    });
  });
});
