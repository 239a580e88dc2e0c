import { z } from 'zod';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { sizeGbSchema } from './size-gb';

export type SnapshotStatus = 'creating' | 'available' | 'deleting' | 'deleted' | 'error';
export type SnapshotOperation = 'create' | 'delete';

export const snapshotStream = (id: string) => `snapshot-${id}`;

/**
 * Volume snapshots (spec 4.9, DECISIONS 14): never made through the API, only registered by an
 * operator (`POST /v1/storage/snapshots/db`, an import) or reported by provider sync, so they exist
 * in their final state with the provider's id. A snapshot names a volume of the project at the
 * same provider and takes its region.
 */
export const snapshotSchema = z.object({
  volumeId: z.string().min(1).max(1024),
  name: z.string().min(1).max(64),
  sizeGb: sizeGbSchema,
  region: z.string().min(1).max(64),
  tags: tagsSchema.default([]),
});

export const snapshots: JobResource<typeof snapshotSchema, SnapshotOperation, SnapshotStatus> = {
  context: 'storage',
  name: 'Snapshot',
  label: 'Snapshot',
  kind: 'snapshot',
  stream: snapshotStream,
  schema: snapshotSchema,
  operations: {
    create: { from: [], transient: 'creating', final: 'available' },
    delete: { from: ['available', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
};
