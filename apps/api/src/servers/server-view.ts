import { z } from 'zod';
import type { ServerDoc } from '../../../../projections/servers/servers.projection';
import type { BackupDoc } from '../../../../projections/backups/backups.projection';

const catalogRef = z.object({ slug: z.string(), name: z.string() });

/** Spec 2.3 attributes of a server, plus the create fields it keeps and its latest job. */
export const serverAttributes = z.object({
  name: z.string(),
  hostname: z.string(),
  label: z.string(),
  status: z.string(),
  ipmiStatus: z.string(),
  role: z.enum(['BareMetal', 'VirtualMachine']),
  site: z.string(),
  region: z.string(),
  locked: z.boolean(),
  rescueAllowed: z.boolean(),
  billing: z.string(),
  plan: catalogRef,
  operatingSystem: catalogRef,
  provider: z.string().nullable(),
  providerKind: z.string(),
  sshKeys: z.array(z.string()),
  tags: z.array(z.object({ key: z.string(), value: z.string() })),
  primaryIpv4: z.string().nullable(),
  errorMessage: z.string().nullable(),
  restoredFromBackup: z.string().nullable(),
  jobId: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deletedAt: z.string().nullable(),
});

export const SERVER_SORT_FIELDS = ['createdAt', 'hostname', 'status', 'site'];

const ipmiStatus = (doc: ServerDoc) => {
  if (doc.role !== 'BareMetal') return 'not_applicable';
  if (doc.status === 'active' || doc.status === 'restarted' || doc.status === 'migrating') return 'on';
  if (doc.status === 'stopped' || doc.status === 'terminated') return 'off';
  return 'unknown';
};

export function serverResource(doc: ServerDoc) {
  return {
    id: doc.id,
    type: 'servers',
    attributes: {
      name: doc.name,
      hostname: doc.hostname,
      label: doc.label,
      status: doc.status,
      ipmiStatus: ipmiStatus(doc),
      role: doc.role,
      site: doc.site,
      region: doc.region,
      locked: doc.locked,
      rescueAllowed: doc.role === 'BareMetal' && (doc.status === 'active' || doc.status === 'stopped'),
      billing: doc.billing,
      plan: doc.plan,
      operatingSystem: doc.operatingSystem,
      provider: doc.providerId,
      providerKind: doc.providerKind,
      sshKeys: doc.sshKeys,
      tags: doc.tags,
      primaryIpv4: doc.ipv4,
      errorMessage: doc.errorMessage,
      restoredFromBackup: doc.restoredFromBackup,
      jobId: doc.jobId,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt,
      deletedAt: doc.deletedAt,
    },
  };
}

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
