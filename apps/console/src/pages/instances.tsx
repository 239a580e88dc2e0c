import { useEffect, useState } from 'preact/hooks';
import type { operations } from '../../../../clients/typescript/src/generated/api';
import { api, query, type List, type Resource } from '../api';
import { LiveListPage, useLiveList, type FilterControl } from '../live-list';
import { ConsoleLink, useConsoleSession } from '../console-session';
import { CreateForm, type FormField, type Option } from '../create-form';
import { FormErrors, RowActions, Status, THead, useAction, useLoad, when } from '../ui';

interface Instance {
  name: string;
  status: string;
  region: string;
  instanceType: string;
  provider: string;
  ipAddress: string | null;
  createdAt: string;
}

const STATUSES = ['creating', 'provisioning', 'active', 'starting', 'stopping', 'stopped', 'terminating', 'terminated', 'error'];
const SORTS: Array<[string, string]> = [
  ['-createdAt', 'Newest first'],
  ['createdAt', 'Oldest first'],
  ['name', 'Name A–Z'],
  ['-name', 'Name Z–A'],
  ['status', 'Status'],
  ['region', 'Region'],
];

export function Instances() {
  const view = useLiveList<Instance, { status: string; region: string; provider: string; sort: string }>('/v1/instances', 'instance', 'compute.Instance', { status: '', region: '', provider: '', sort: '-createdAt' });
  const controls: FilterControl<{ status: string; region: string; provider: string; sort: string }>[] = [
    { name: 'status', label: 'Status', options: [['', 'Any'], ...STATUSES] },
    { name: 'region', label: 'Region', placeholder: 'e.g. us-east-1' },
    { name: 'provider', label: 'Provider', placeholder: 'e.g. provider_publiccloud' },
    { name: 'sort', label: 'Sort', options: SORTS },
  ];
  return (
    <LiveListPage title="Instances" noun="instances" create={<CreateInstance onCreated={() => view.list.reload()} />} view={view} controls={controls} error={undefined}>
      <InstanceTable rows={view.rows} />
    </LiveListPage>
  );
}

function InstanceTable({ rows }: { rows: Resource<Instance>[] }) {
  const [error, run] = useAction();
  const act = (id: string, action: string) => run(() => api.post(`/v1/instances/${id}/actions`, { action }));
  const consoleSession = useConsoleSession('instances', run);
  return (
    <>
      <FormErrors error={error} />
      <ConsoleLink opened={consoleSession.opened} rows={rows} />
      <table class="instances">
        <THead cols={['Name', 'Status', 'Region', 'Type', 'Address', 'Created', 'Actions']} />
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-id={r.id}>
              <td>
                <a href={`#/instances/${r.id}`}>{r.attributes.name}</a>
              </td>
              <td>
                <Status value={r.attributes.status} />
              </td>
              <td>{r.attributes.region}</td>
              <td>{r.attributes.instanceType}</td>
              <td>{r.attributes.ipAddress ?? '—'}</td>
              <td>{when(r.attributes.createdAt)}</td>
              <td class="actions">
                <RowActions
                  of={r.attributes.name}
                  actions={[
                    r.attributes.status === 'active' && { label: 'Console', verb: 'Open console of', run: () => consoleSession.open(r.id) },
                    r.attributes.status === 'active' && { label: 'Stop', run: () => act(r.id, 'stop') },
                    r.attributes.status === 'active' && { label: 'Restart', run: () => act(r.id, 'restart') },
                    r.attributes.status === 'stopped' && { label: 'Start', run: () => act(r.id, 'start') },
                    !['terminated', 'terminating'].includes(r.attributes.status) && { label: 'Terminate', danger: true, run: () => act(r.id, 'terminate') },
                  ]}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The catalog's choices for a provider (its regions, instance types, images), each a picker. */
async function catalogFor(providerId: string): Promise<{ regions: Option[]; types: Option[]; images: Option[] }> {
  if (!providerId) return { regions: [], types: [], images: [] };
  const q = query({ providerId, limit: 100 });
  const [regions, types, images] = await Promise.all([
    api.get<List<{ slug: string; name: string }>>(`/v1/catalog/regions${q}`),
    api.get<List<{ slug: string; name: string; vcpus: number; memoryGb: number; hourlyCents: number }>>(`/v1/catalog/instance-types${q}`),
    api.get<List<{ slug: string; name: string }>>(`/v1/catalog/images${q}`),
  ]);
  return {
    regions: regions.data.map((r) => ({ value: r.attributes.slug, label: `${r.attributes.name} (${r.attributes.slug})` })),
    types: types.data.map((t) => ({ value: t.attributes.slug, label: `${t.attributes.name}: ${t.attributes.vcpus} vCPU, ${t.attributes.memoryGb} GB` })),
    images: images.data.map((i) => ({ value: i.attributes.slug, label: i.attributes.name })),
  };
}

// Errors that name no pointer but are about one field of the form.
const ALIASES = { INVALID_REGION: 'region', INVALID_PLAN: 'instanceType', INVALID_OS: 'image', PROVIDER_NOT_FOUND: 'providerId' };
// The create's own field names in the typed client (a type only), as for servers.
type InstanceField = keyof Exclude<operations['InstancesController.create']['requestBody']['content']['application/json'], { data: unknown }> & ('name' | 'providerId' | 'region' | 'instanceType' | 'image');

function CreateInstance({ onCreated }: { onCreated: () => void }) {
  const providers = useLoad(() => api.get<List<{ name: string; enabled: boolean }>>('/v1/providers?limit=100'), []);
  const [form, setForm] = useState<Record<InstanceField, string>>({ name: '', providerId: '', region: '', instanceType: '', image: '' });
  const catalog = useLoad(() => catalogFor(form.providerId), [form.providerId]);
  useEffect(() => {
    if (!form.providerId && providers.data?.data[0]) setForm((f) => ({ ...f, providerId: providers.data!.data[0]!.id }));
  }, [providers.data]);

  const fields: FormField<InstanceField>[] = [
    { name: 'name', label: 'Name' },
    { name: 'providerId', label: 'Provider', priced: true, options: (providers.data?.data ?? []).map((p) => ({ value: p.id, label: p.attributes.name })) },
    { name: 'region', label: 'Region', priced: true, options: catalog.data?.regions ?? [] },
    { name: 'instanceType', label: 'Plan', priced: true, options: catalog.data?.types ?? [] },
    { name: 'image', label: 'Image', priced: true, options: catalog.data?.images ?? [], empty: 'Provider default' },
  ];
  return (
    <>
      <FormErrors error={providers.error ?? catalog.error} />
      <CreateForm
        idPrefix="new"
        title="Create an instance"
        noun="Instance"
        path="/v1/instances"
        resourceType="instance"
        fields={fields}
        form={form}
        setForm={setForm}
        body={({ image, ...rest }) => (image ? { ...rest, image } : rest)}
        needed={['providerId', 'region', 'instanceType']}
        placeholders={{ name: 'estimate' }}
        aliases={ALIASES}
        submitLabel="Create instance"
        clearAfter={['name']}
        onCreated={onCreated}
      />
    </>
  );
}
