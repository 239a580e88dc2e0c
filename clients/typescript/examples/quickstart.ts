import { createCloudClient } from 'cloud-provisioning-client';

async function main() {
  const cloud = createCloudClient({ baseUrl: process.env.CLOUD_API_URL!, apiKey: process.env.CLOUD_API_KEY! });
  const provider = await cloud.POST('/v1/providers', { body: { name: 'provider_publiccloud', apiKey: 'sk-demo' } });
  const created = await cloud.POST('/v1/instances', { body: { name: 'web-1', providerId: provider.data!.data.id, region: 'us-east-1', instanceType: 'pc-t3-medium' } });
  await cloud.waitForJob(created.data!.jobId);
  for await (const instance of cloud.paginate('/v1/instances', { query: { limit: 50 } })) console.log(instance.id, instance.attributes.status);
  for await (const { position, event } of cloud.events.stream({ subject: `instance-${created.data!.data.id}`, after: 0 })) {
    console.log(position, event.type);
    if (event.type === 'compute.InstanceProvisioned.v1') break;
  }
}
main();
