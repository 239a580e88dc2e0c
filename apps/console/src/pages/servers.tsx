import { useState } from 'preact/hooks';
import type { operations } from '../../../../clients/typescript/src/generated/api';
import { api, type List } from '../api';
import { ConsoleLink, useConsoleSession } from '../console-session';
import { CreateForm, type FormField } from '../create-form';
import { LiveListPage, useLiveList, type FilterControl } from '../live-list';
import { FormErrors, RowActions, Status, THead, useAction, useLoad, when } from '../ui';

interface Server {
  name: string;
  hostname: string;
  status: string;
  role: string;
  site: string;
  plan: { slug: string; name: string };
  primaryIpv4: string | null;
  locked: boolean;
  createdAt: string;
}

// Spec 3.2 statuses plus migrating; terminated ones are listed only when asked for.
const STATUSES = ['active', 'creating', 'deleting', 'error', 'inactive', 'installing', 'maintenance', 'migrating', 'pending', 'rescued', 'rescuing', 'restarted', 'scheduled', 'starting', 'stopped', 'stopping', 'suspended', 'terminated'];
const SORTS: Array<[string, string]> = [
  ['-createdAt', 'Newest first'],
  ['createdAt', 'Oldest first'],
  ['hostname', 'Hostname A–Z'],
  ['-hostname', 'Hostname Z–A'],
  ['status', 'Status'],
  ['site', 'Site'],
];

/** Bare-metal servers (and VMs) of the project, live from the event stream like the instances. */
export function Servers() {
  const view = useLiveList<Server, { status: string; site: string; role: string; sort: string }>('/v1/servers', 'server', 'compute.Server', { status: '', site: '', role: '', sort: '-createdAt' });
  const controls: FilterControl<{ status: string; site: string; role: string; sort: string }>[] = [
    { name: 'status', label: 'Status', options: [['', 'Any but terminated'], ...STATUSES] },
    { name: 'site', label: 'Site', placeholder: 'e.g. NYC' },
    { name: 'role', label: 'Kind', options: [['', 'Any'], ['BareMetal', 'Bare metal'], ['VirtualMachine', 'Virtual machine']] },
    { name: 'sort', label: 'Sort', options: SORTS },
  ];
  const [error, run] = useAction();
  const act = (id: string, action: string) =>
    run(() => (action === 'delete' ? api.delete(`/v1/servers/${encodeURIComponent(id)}`) : api.post(`/v1/servers/${encodeURIComponent(id)}/actions`, { action })));
  const consoleSession = useConsoleSession('servers', run);
  return (
    <LiveListPage title="Servers" noun="servers" create={<CreateServer onCreated={() => view.list.reload()} />} view={view} controls={controls} error={error}>
      <ConsoleLink opened={consoleSession.opened} rows={view.rows} />
      <table class="servers">
        <THead cols={['Name', 'Hostname', 'Status', 'Kind', 'Site', 'Plan', 'Address', 'Created', 'Actions']} />
        <tbody>
          {view.rows.map((s) => (
            <tr key={s.id} data-id={s.id}>
              <td>
                <a href={`#/servers/${s.id}`}>{s.attributes.name}</a>
              </td>
              <td>{s.attributes.hostname}</td>
              <td>
                <Status value={s.attributes.status} />
              </td>
              <td>{s.attributes.role === 'BareMetal' ? 'Bare metal' : 'VM'}</td>
              <td>{s.attributes.site}</td>
              <td>{s.attributes.plan.name}</td>
              <td>{s.attributes.primaryIpv4 ?? '—'}</td>
              <td>{when(s.attributes.createdAt)}</td>
              <td class="actions">
                {s.attributes.locked ? (
                  <span class="muted">Locked</span>
                ) : (
                  <RowActions
                    of={s.attributes.name}
                    actions={[
                      s.attributes.status === 'active' && { label: 'Console', verb: 'Open console of', run: () => consoleSession.open(s.id) },
                      s.attributes.status === 'active' && { label: 'Power off', run: () => act(s.id, 'power_off') },
                      s.attributes.status === 'active' && { label: 'Reboot', run: () => act(s.id, 'reboot') },
                      s.attributes.status === 'stopped' && { label: 'Power on', run: () => act(s.id, 'power_on') },
                      !['deleting', 'terminated'].includes(s.attributes.status) && { label: 'Delete', danger: true, run: () => act(s.id, 'delete') },
                    ]}
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </LiveListPage>
  );
}

interface CatalogPlan {
  slug: string;
  name: string;
  category: string;
  cpuCores: number;
  memoryGb: number;
  regions: string[];
}

/** The server catalog (spec 4.5): sites, plans and operating systems, for every provider kind at once. */
async function serverCatalog() {
  const [regions, plans, systems, providers] = await Promise.all([
    api.get<List<{ name: string; site: string }>>('/v1/regions?limit=100&sort=name'),
    api.get<List<CatalogPlan>>('/v1/plans?limit=100&sort=name'),
    api.get<List<{ slug: string; name: string; categories: string[] }>>('/v1/operating_systems?limit=100&sort=name'),
    api.get<List<{ name: string }>>('/v1/providers?limit=100'),
  ]);
  const sites = new Map(regions.data.map((r) => [r.attributes.site, `${r.attributes.name} (${r.attributes.site})`]));
  return { sites: [...sites].map(([value, label]) => ({ value, label })), plans: plans.data.map((p) => p.attributes), systems: systems.data.map((o) => o.attributes), providers: providers.data };
}

// Errors that name no pointer but are about one field of the form.
const ALIASES = { INVALID_REGION: 'site', INVALID_PLAN: 'plan', INVALID_OS: 'operating_system', PROVIDER_NOT_FOUND: 'provider' };
// The form's fields by the create's own names in the typed client (a type only: nothing of it is bundled),
// so a renamed or removed field of the API fails the console's typecheck.
type ServerField = keyof Exclude<operations['ServersController.create']['requestBody']['content']['application/json'], { data: unknown }> & ('name' | 'hostname' | 'role' | 'provider' | 'site' | 'plan' | 'operating_system' | 'billing');
const isVm = (category: string) => category.startsWith('virtual-machine');

/** Create a server from the catalog: the site narrows the plans, the plan the operating systems. */
function CreateServer({ onCreated }: { onCreated: () => void }) {
  const catalog = useLoad(serverCatalog, []);
  const [form, setForm] = useState<Record<ServerField, string>>({ name: '', hostname: '', role: '', provider: '', site: '', plan: '', operating_system: '', billing: 'hourly' });
  const c = catalog.data;
  const plans = (c?.plans ?? []).filter((p) => (!form.site || p.regions.includes(form.site)) && (!form.role || isVm(p.category) === (form.role === 'VirtualMachine')));
  const plan = c?.plans.find((p) => p.slug === form.plan);
  const systems = (c?.systems ?? []).filter((o) => !plan || o.categories.includes(plan.category));
  const fields: FormField<ServerField>[] = [
    { name: 'name', label: 'Name' },
    { name: 'hostname', label: 'Hostname' },
    { name: 'role', label: 'Server kind', priced: true, empty: 'As the plan says', options: [{ value: 'BareMetal', label: 'Bare metal' }, { value: 'VirtualMachine', label: 'Virtual machine' }] },
    { name: 'provider', label: 'VM provider', priced: true, empty: 'None (bare metal)', options: (c?.providers ?? []).map((p) => ({ value: p.id, label: p.attributes.name })) },
    { name: 'site', label: 'Data center site', priced: true, options: c?.sites ?? [] },
    { name: 'plan', label: 'Server plan', priced: true, options: plans.map((p) => ({ value: p.slug, label: `${p.name}: ${p.cpuCores} cores, ${p.memoryGb} GB` })) },
    { name: 'operating_system', label: 'Operating system', priced: true, options: systems.map((o) => ({ value: o.slug, label: o.name })) },
    { name: 'billing', label: 'Billing', priced: true, options: ['hourly', 'monthly', 'yearly'].map((b) => ({ value: b, label: b })) },
  ];
  return (
    <>
      <FormErrors error={catalog.error} />
      <CreateForm
        idPrefix="srv"
        title="Create a server"
        noun="Server"
        path="/v1/servers"
        resourceType="server"
        fields={fields}
        form={form}
        setForm={setForm}
        // Empty optional pickers are left out: the API's defaults apply.
        body={(f) => Object.fromEntries(Object.entries(f).filter(([k, v]) => v !== '' || !['role', 'provider'].includes(k)))}
        needed={['site', 'plan', 'operating_system', 'billing']}
        placeholders={{ name: 'estimate', hostname: 'estimate.example' }}
        aliases={ALIASES}
        submitLabel="Create server"
        clearAfter={['name', 'hostname']}
        onCreated={onCreated}
      />
    </>
  );
}
