import { z } from 'zod';
import { DomainError } from '../shared/domain-error';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';

export type VolumeStatus = 'creating' | 'available' | 'attaching' | 'attached' | 'detaching' | 'deleting' | 'deleted' | 'error';
export type VolumeOperation = 'create' | 'attach' | 'detach' | 'delete';

export const volumeStream = (id: string) => `volume-${id}`;

/** Block storage volumes (spec 4.9; DECISIONS 14): `available` while detached, `attached` to at most one instance. */
export const volumeSchema = z.object({
  name: z.string().min(1).max(64),
  sizeGb: z.number().int().min(1).max(65536),
  region: z.string().min(1).max(64),
  /** The instance it is attached to (set by a completed attach, cleared by a detach). */
  instanceId: z.string().nullable().default(null),
  tags: tagsSchema.default([]),
});

export const volumes: JobResource<typeof volumeSchema, VolumeOperation, VolumeStatus> = {
  context: 'storage',
  name: 'Volume',
  label: 'Volume',
  kind: 'volume',
  stream: volumeStream,
  schema: volumeSchema,
  provided: z.object({ devicePath: z.string().nullable().describe('Where the attached volume appears on the instance') }),
  operations: {
    create: { from: [], transient: 'creating', final: 'available' },
    attach: { from: ['available'], transient: 'attaching', final: 'attached' },
    detach: { from: ['attached'], transient: 'detaching', final: 'available' },
    delete: { from: ['available', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
  rules: {
    // A volume follows its instance's region (the handler looks the instance up).
    attach: (fields, args) =>
      args.instanceRegion !== fields.region ? new DomainError('INVALID_REGION', `Instance ${String(args.instanceId)} is in ${String(args.instanceRegion)}; the volume is in ${fields.region}`) : null,
  },
  complete: {
    attach: (fields, args) => ({ ...fields, instanceId: String(args.instanceId) }),
    detach: (fields) => ({ ...fields, instanceId: null }),
  },
};
