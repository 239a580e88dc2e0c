import { volumes } from '../../libs/domain/storage/volume.resource';
import { jobResourceListShape, jobResourceProjection, type JobResourceDoc } from '../../libs/subscriptions/src/job-resource-projection';
import { indexOn } from '../../libs/readstore/src/list-shapes';
import type { ReadCollection } from '../../libs/readstore/src/read-store.port';

export type VolumeDoc = JobResourceDoc<typeof volumes.schema>;

/** Serves the volume routes, and the instance-terminate guard's lookup of an instance's volumes. */
export const volumesProjection = jobResourceProjection(volumes, {
  name: 'volumes',
  version: 1,
  list: jobResourceListShape('GET /v1/storage/volumes'),
  // The instance-terminate guard: an instance's attached volumes, and those being attached to it.
  indexes: [indexOn('instanceId', 'id'), indexOn('pendingArgs.instanceId', 'status', 'id')],
});

/** The volumes attached to an instance, or being attached to it (the instance-terminate guard's lookup). */
export async function volumesHeldBy(volumes: ReadCollection<VolumeDoc>, instanceId: string): Promise<string[]> {
  const [held, coming] = await Promise.all([
    volumes.find({ filter: { instanceId }, withTotal: false }),
    volumes.find({ filter: { 'pendingArgs.instanceId': instanceId, status: 'attaching' }, withTotal: false }),
  ]);
  return [...held.items, ...coming.items].map((v) => v.id);
}
