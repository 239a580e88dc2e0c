import { elasticIps } from '../../libs/domain/networking/elastic-ip.resource';
import { firewalls } from '../../libs/domain/networking/firewall.resource';
import { interconnections } from '../../libs/domain/networking/interconnection.resource';
import { networkDatabases } from '../../libs/domain/networking/network-database.resource';
import { PrivateNetworkRangeEventTypes } from '../../libs/domain/networking/private-network-ranges';
import { privateNetworks } from '../../libs/domain/networking/private-network.resource';
import { vlans } from '../../libs/domain/networking/vlan.resource';
import { jobResourceEventTypes, type AnyJobResource } from '../../libs/domain/shared/job-resource';
import type { DocumentProjection } from '../../libs/subscriptions/src/document-projection';
import { elasticIpsProjection } from '../../projections/elastic-ips/elastic-ips.projection';
import { firewallsProjection } from '../../projections/firewalls/firewalls.projection';
import { interconnectionsProjection } from '../../projections/interconnections/interconnections.projection';
import { networkDatabasesProjection } from '../../projections/network-databases/network-databases.projection';
import { privateNetworksProjection } from '../../projections/private-networks/private-networks.projection';
import { vlansProjection } from '../../projections/vlans/vlans.projection';
import { declaredJobResource } from '../../sagas/job-operations/declared-resource';
import type { ContextModule } from '../../libs/runtime/src/context-module';

/** Each networking resource beside the read model that serves it. */
const RESOURCES: ReadonlyArray<[AnyJobResource, DocumentProjection<any>]> = [ // eslint-disable-line @typescript-eslint/no-explicit-any
  [elasticIps, elasticIpsProjection],
  [vlans, vlansProjection],
  [firewalls, firewallsProjection],
  [privateNetworks, privateNetworksProjection],
  [interconnections, interconnectionsProjection],
  [networkDatabases, networkDatabasesProjection],
];

/** Networking (spec 4.8): elastic IPs, VLANs, firewalls, private networks and interconnections, all declared job-backed resources. */
export const networkingModule: ContextModule = {
  name: 'networking',
  projections: RESOURCES.map(([, p]) => p),
  jobResources: RESOURCES.map(([r, p]) => declaredJobResource(r, p.name)),
  eventTypes: [...RESOURCES.flatMap(([r]) => Object.values(jobResourceEventTypes(r))), ...Object.values(PrivateNetworkRangeEventTypes)],
  // The range ledger (`pnetranges-<project>-<region>`) orders racing creates; it is on the topic, not a notification.
  unpublished: Object.values(PrivateNetworkRangeEventTypes),
};
