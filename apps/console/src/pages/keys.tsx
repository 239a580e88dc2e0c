import { useState } from 'preact/hooks';
import { api, query, type List, type Resource } from '../api';
import { Field, FormErrors, KeyTable, ShownOnce, useAction, useLoad, when } from '../ui';

interface ApiKey {
  name: string;
  prefix: string;
  role: string;
  mode: string;
  revoked: boolean;
  expiresAt: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  key?: string;
}

export function ApiKeys() {
  const [showRevoked, setShowRevoked] = useState(false);
  const list = useLoad(() => api.get<List<ApiKey>>(`/v1/api-keys${query({ limit: 100, revoked: showRevoked ? undefined : 'false' })}`), [showRevoked]);
  const [form, setForm] = useState({ name: '', role: 'developer' });
  const [error, run] = useAction();
  const [created, setCreated] = useState<Resource<ApiKey>>();
  const [revokeError, runRevoke] = useAction();

  const create = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const res = await api.post<{ data: Resource<ApiKey> }>('/v1/api-keys', form);
      setCreated(res.data);
      setForm((f) => ({ ...f, name: '' }));
      list.reload();
    });
  };
  const revoke = (id: string) => runRevoke(() => api.delete(`/v1/api-keys/${id}`).then(list.reload));

  return (
    <>
      <h1>API keys</h1>
      <section class="panel" aria-labelledby="newkey-h">
        <h2 id="newkey-h">Create a key</h2>
        <form onSubmit={create} aria-label="Create an API key" class="grid-form">
          <Field id="key-name" name="name" label="Name" error={error}>
            {(aria) => <input {...aria} value={form.name} onInput={(e) => setForm((f) => ({ ...f, name: e.currentTarget.value }))} />}
          </Field>
          <Field id="key-role" name="role" label="Role" error={error}>
            {(aria) => (
              <select {...aria} value={form.role} onChange={(e) => setForm((f) => ({ ...f, role: e.currentTarget.value }))}>
                {['owner', 'admin', 'developer', 'viewer'].map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <FormErrors error={error} fields={['name', 'role']} />
          <div class="submit">
            <button type="submit" class="primary">
              Create key
            </button>
          </div>
        </form>
        {created?.attributes.key && (
          <ShownOnce id="new-key-value" value={created.attributes.key} copyLabel="Copy key" onDone={() => setCreated(undefined)}>
            Key <strong>{created.attributes.name}</strong> created. Copy it now: it is shown only once.
          </ShownOnce>
        )}
      </section>
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">Keys</h2>
        <label class="inline">
          <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.currentTarget.checked)} /> Show revoked keys
        </label>
        <FormErrors error={list.error ?? revokeError} />
        <KeyTable
          kind="keys"
          rows={list.data?.data ?? []}
          columns={[
            ['Role', (k) => k.role],
            ['Mode', (k) => k.mode],
            ['Last used', (k) => when(k.lastUsedAt)],
          ]}
          onRevoke={revoke}
        />
      </section>
    </>
  );
}
