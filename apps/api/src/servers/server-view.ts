import { z } from 'zod';
import { SERVER } from '../../../../libs/domain/servers/server.fields';
import type { ServerDoc } from '../../../../projections/servers/servers.projection';
import type { BackupDoc } from '../../../../projections/backups/backups.projection';

/** Spec 2.3 attributes of a server, plus the create fields it keeps and its latest job. */
export const serverAttributes = SERVER.attributes;

export const SERVER_SORT_FIELDS = ['createdAt', 'hostname', 'status', 'site'];

export const serverResource = (doc: ServerDoc) => ({ id: doc.id, type: 'servers', attributes: SERVER.attributesOf(doc) });

export const backupAttributes = z.object({
  name: z.string(),
  status: z.string(),
  source: z.enum(['server', 'instance']),
  serverId: z.string().nullable(),
  instanceId: z.string().nullable(),
  hostname: z.string(),
  plan: z.string(),
  operatingSystem: z.string(),
  site: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export function backupResource(doc: BackupDoc) {
  return {
    id: doc.id,
    type: 'backups',
    attributes: {
      name: doc.name,
      status: doc.status,
      source: doc.source,
      serverId: doc.source === 'server' ? doc.resourceId : null,
      instanceId: doc.source === 'instance' ? doc.resourceId : null,
      hostname: doc.serverSpec.hostname,
      plan: doc.serverSpec.plan.slug,
      operatingSystem: doc.serverSpec.operatingSystem.slug,
      site: doc.serverSpec.site,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
    },
  };
}
