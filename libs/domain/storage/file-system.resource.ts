import { z } from 'zod';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';
import { sizeGbSchema } from './size-gb';

export type FileSystemStatus = 'creating' | 'active' | 'deleting' | 'deleted' | 'error';
export type FileSystemOperation = 'create' | 'delete';

export const fileSystemStream = (id: string) => `filesystem-${id}`;

/** Shared file systems (spec 4.9, DECISIONS 14): an NFS-style mount target once active. */
export const fileSystemSchema = z.object({
  name: z.string().min(1).max(64),
  sizeGb: sizeGbSchema,
  region: z.string().min(1).max(64),
  tags: tagsSchema.default([]),
});

export const fileSystems: JobResource<typeof fileSystemSchema, FileSystemOperation, FileSystemStatus> = {
  context: 'storage',
  name: 'FileSystem',
  label: 'File system',
  kind: 'file-system',
  stream: fileSystemStream,
  schema: fileSystemSchema,
  provided: z.object({ mountTarget: z.string().nullable().describe('What clients mount (host:/export), once active') }),
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
};
