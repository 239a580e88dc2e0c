import type { DomainEvent } from '../shared/domain-error';
import type { Tag } from '../shared/tags';
import type { InstanceTemplateFields } from './instance-template.resource';

/** Recorded until tags became the `{key, value}` array of DECISIONS 13; read as v2 (tags ordered by key). */
export type InstanceTemplateCreatedV1 = DomainEvent<
  'compute.InstanceTemplateCreated.v1',
  Omit<InstanceTemplateFields, 'tags'> & { tags: Record<string, string>; templateId: string; projectId: string; createdAt: string }
>;
export type InstanceTemplateCreated = DomainEvent<'compute.InstanceTemplateCreated.v2', InstanceTemplateFields & { tags: Tag[]; templateId: string; projectId: string; createdAt: string }>;
export type InstanceTemplateDeleted = DomainEvent<'compute.InstanceTemplateDeleted.v1', { templateId: string; projectId: string; deletedAt: string }>;
export type InstanceTemplateEvent = InstanceTemplateCreatedV1 | InstanceTemplateCreated | InstanceTemplateDeleted;
