import { z } from 'zod';
import { simpleResourceDecider, type SimpleResource } from '../shared/simple-resource';
import { tagList, tagsSchema } from '../shared/tags';

export const templateStream = (templateId: string) => `template-${templateId}`;

/** The reusable launch specification of spec 2.8 (compute context; stream `template-<templateId>`). */
export const instanceTemplateSchema = z.object({
  name: z.string().min(1).max(64),
  providerId: z.string().min(1).max(64),
  region: z.string().min(1).max(64),
  instanceType: z.string().min(1).max(64),
  image: z.string().min(1).max(255).nullable().default(null),
  diskSizeGb: z.number().int().min(1).max(65536).nullable().default(null),
  sshKeyId: z.string().min(1).max(64).nullable().default(null).describe('An SSH key of the same provider'),
  accelerators: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}:[1-9][0-9]{0,2}$/, 'accelerators must be "<GPU type>:<count>", e.g. "A100:8"')
    .nullable()
    .default(null)
    .describe('`<GPU type>:<count>`, e.g. `A100:8`'),
  workerCount: z.number().int().min(1).max(1000).default(1),
  spot: z.boolean().default(false),
  tags: tagsSchema.default([]),
});
export type InstanceTemplateFields = z.output<typeof instanceTemplateSchema>;

export const instanceTemplates: SimpleResource<typeof instanceTemplateSchema> = {
  label: 'Instance template',
  idField: 'templateId',
  stream: templateStream,
  schema: instanceTemplateSchema,
  events: {
    created: 'compute.InstanceTemplateCreated.v2',
    deleted: 'compute.InstanceTemplateDeleted.v1',
    upcast: { 'compute.InstanceTemplateCreated.v1': (data) => ({ ...data, tags: tagList(data.tags as Record<string, string>) }) },
  },
};

export const instanceTemplateDecider = simpleResourceDecider(instanceTemplates);
