import { useEffect, useState } from 'preact/hooks';
import { api, query, type List, type Resource } from '../api';
import { LiveNote, Pager, useLiveList } from '../live-list';
import { CreateForm, type FormField, type Option } from '../create-form';
import { Field, FormErrors, SelectField, Status, THead, useLoad, when } from '../ui';

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
const PAGE_SIZE = 10;

export function Instances() {
  const [filters, setFilters] = useState({ status: '', region: '', provider: '', sort: '-createdAt', page: 1 });
  const { rows, live, list } = useLiveList<Instance>(
    '/v1/instances',
    { status: filters.status, region: filters.region, provider: filters.provider, sort: filters.sort, page: filters.page, limit: PAGE_SIZE },
    'compute.Instance',
    (e) => (e.data?.instanceId as string | undefined) ?? e.subject?.replace(/^instance-/, ''),
  );

  const set = (patch: Partial<typeof filters>) => setFilters((f) => ({ ...f, page: 1, ...patch }));
  const meta = list.data?.meta;
  return (
    <>
      <h1>Instances</h1>
      <LiveNote live={live} />
      <CreateInstance onCreated={() => list.reload()} />
      <section aria-labelledby="list-h">
        <h2 id="list-h">Your instances</h2>
        <form class="filters" aria-label="Filter instances" onSubmit={(e) => e.preventDefault()}>
          <SelectField id="f-status" label="Status" value={filters.status} options={[['', 'Any'], ...STATUSES]} onChange={(status) => set({ status })} />
          <Field id="f-region" label="Region">
            {(aria) => <input {...aria} value={filters.region} onChange={(e) => set({ region: e.currentTarget.value.trim() })} placeholder="e.g. us-east-1" />}
          </Field>
          <Field id="f-provider" label="Provider">
            {(aria) => <input {...aria} value={filters.provider} onChange={(e) => set({ provider: e.currentTarget.value.trim() })} placeholder="e.g. provider_publiccloud" />}
          </Field>
          <SelectField id="f-sort" label="Sort" value={filters.sort} options={SORTS} onChange={(sort) => set({ sort })} />
        </form>
        <FormErrors error={list.error} />
        <InstanceTable rows={rows} />
        <Pager meta={meta} page={filters.page} setPage={(page) => setFilters((f) => ({ ...f, page }))} noun="instances" />
      </section>
    </>
  );
}

function InstanceTable({ rows }: { rows: Resource<Instance>[] }) {
  const [error, setError] = useState<unknown>();
  const [consoleUrl, setConsoleUrl] = useState<{ id: string; url: string; expiresAt: string }>();
  const act = async (id: string, action: string) => {
    setError(undefined);
    try {
      await api.post(`/v1/instances/${id}/actions`, { action });
    } catch (err) {
      setError(err);
    }
  };
  const openConsole = async (id: string) => {
    setError(undefined);
    try {
      const res = await api.post<{ data: Resource<{ url: string; expiresAt: string }> }>(`/v1/instances/${id}/console`);
      setConsoleUrl({ id, url: res.data.attributes.url, expiresAt: res.data.attributes.expiresAt });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <FormErrors error={error} />
      {consoleUrl && (
        <div class="notice" role="status">
          <p>
            Console session opened for <code>{consoleUrl.id}</code> (expires {when(consoleUrl.expiresAt)}). The link is shown once:
          </p>
          <p>
            <a class="console-link" href={consoleUrl.url} target="_blank" rel="noopener noreferrer">
              Open the console
            </a>
          </p>
        </div>
      )}
      {rows.length === 0 ? (
        <p class="muted">No instances match.</p>
      ) : (
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
                  {r.attributes.status === 'active' && (
                    <>
                      <button type="button" onClick={() => openConsole(r.id)} aria-label={`Open console of ${r.attributes.name}`}>
                        Console
                      </button>
                      <button type="button" onClick={() => act(r.id, 'stop')} aria-label={`Stop ${r.attributes.name}`}>
                        Stop
                      </button>
                      <button type="button" onClick={() => act(r.id, 'restart')} aria-label={`Restart ${r.attributes.name}`}>
                        Restart
                      </button>
                    </>
                  )}
                  {r.attributes.status === 'stopped' && (
                    <button type="button" onClick={() => act(r.id, 'start')} aria-label={`Start ${r.attributes.name}`}>
                      Start
                    </button>
                  )}
                  {!['terminated', 'terminating'].includes(r.attributes.status) && (
                    <button type="button" class="danger" onClick={() => act(r.id, 'terminate')} aria-label={`Terminate ${r.attributes.name}`}>
                      Terminate
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
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
type InstanceField = 'name' | 'providerId' | 'region' | 'instanceType' | 'image';

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
