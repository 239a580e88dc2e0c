import { z } from 'zod';
import type { JobResource } from '../shared/job-resource';
import { tagsSchema } from '../shared/tags';

export type DatabaseStatus = 'creating' | 'active' | 'deleting' | 'deleted' | 'error';
export type DatabaseOperation = 'create' | 'delete';

export const DATABASE_ENGINES = ['postgres', 'mysql', 'redis'] as const;
export type DatabaseEngine = (typeof DATABASE_ENGINES)[number];

export const databaseStream = (id: string) => `database-${id}`;

/** The user a managed database's generated credential is for (Redis ACLs call theirs `default`). */
export const databaseUsername = (engine: DatabaseEngine): string => (engine === 'redis' ? 'default' : 'admin');

/**
 * Managed databases (DECISIONS 14: the spec only names them; network database attachments point at
 * them). `version` is one the provider lists for the engine and `plan` one of its catalog offered in
 * the region: the create's lookups check both. The password is generated at create and kept in the
 * credential vault; the fields hold only its reference.
 */
export const databaseSchema = z.object({
  name: z.string().min(1).max(64),
  engine: z.enum(DATABASE_ENGINES),
  version: z.string().min(1).max(32).describe('One of GET /v1/databases/versions?engine= at the provider'),
  plan: z.string().min(1).max(128).describe('Slug or id of a plan of GET /v1/plans offered by the provider in the region'),
  region: z.string().min(1).max(64),
  tags: tagsSchema.default([]),
  username: z.string().min(1).max(64).nullable().default(null),
  /** The vault reference of the generated password (never the password). */
  credentialRef: z.string().min(1).max(128).nullable().default(null),
});

export const databases: JobResource<typeof databaseSchema, DatabaseOperation, DatabaseStatus> = {
  context: 'databases',
  name: 'Database',
  label: 'Database',
  kind: 'database',
  stream: databaseStream,
  schema: databaseSchema,
  internal: ['credentialRef'],
  provided: z.object({
    host: z.string().nullable().describe('Where the database answers, once active'),
    port: z.number().int().nullable(),
  }),
  operations: {
    create: { from: [], transient: 'creating', final: 'active' },
    delete: { from: ['active', 'error'], transient: 'deleting', final: 'deleted' },
  },
  gone: ['deleting', 'deleted'],
};
