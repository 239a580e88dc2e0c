import type { DomainEvent } from '../shared/domain-error';

/** The reusable launch specification of spec 2.8 (compute context; stream `template-<templateId>`). */
export type InstanceTemplateSpec = {
  name: string;
  providerId: string;
  region: string;
  instanceType: string;
  image: string | null;
  diskSizeGb: number | null;
  sshKeyId: string | null;
  /** `<GPU type>:<count>`, e.g. `A100:8`. */
  accelerators: string | null;
  workerCount: number;
  spot: boolean;
  tags: Record<string, string>;
};

export type InstanceTemplateCreated = DomainEvent<
  'compute.InstanceTemplateCreated.v1',
  InstanceTemplateSpec & { templateId: string; projectId: string; createdAt: string }
>;

export type InstanceTemplateDeleted = DomainEvent<'compute.InstanceTemplateDeleted.v1', { templateId: string; projectId: string; deletedAt: string }>;

export type InstanceTemplateEvent = InstanceTemplateCreated | InstanceTemplateDeleted;

export const InstanceTemplateEventTypes = {
  InstanceTemplateCreated: 'compute.InstanceTemplateCreated.v1',
  InstanceTemplateDeleted: 'compute.InstanceTemplateDeleted.v1',
} as const;

export const templateStream = (templateId: string) => `template-${templateId}`;
