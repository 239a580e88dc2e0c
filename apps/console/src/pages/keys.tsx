import { useState } from 'preact/hooks';
import { api, query, type List, type Resource } from '../api';
import { Field, FormErrors, useLoad, when } from '../ui';

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
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<Resource<ApiKey>>();
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState<string>();
  const [revokeError, setRevokeError] = useState<unknown>();

  const create = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setCopied(false);
    try {
      const res = await api.post<{ data: Resource<ApiKey> }>('/v1/api-keys', form);
      setCreated(res.data);
      setForm((f) => ({ ...f, name: '' }));
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  const copy = async () => {
    if (!created?.attributes.key) return;
    try {
      await navigator.clipboard.writeText(created.attributes.key);
      setCopied(true);
    } catch {
      // No clipboard permission: select the key so the person can copy it themselves.
      const el = document.getElementById('new-key-value');
      if (el) getSelection()?.selectAllChildren(el);
    }
  };
  const revoke = async (id: string) => {
    setRevokeError(undefined);
    try {
      await api.delete(`/v1/api-keys/${id}`);
      setConfirming(undefined);
      list.reload();
    } catch (err) {
      setRevokeError(err);
    }
  };

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
          <div>
            <button type="submit" class="primary">
              Create key
            </button>
          </div>
        </form>
        {created?.attributes.key && (
          <div class="notice" role="status">
            <p>
              Key <strong>{created.attributes.name}</strong> created. Copy it now: it is shown only once.
            </p>
            <p class="secret">
              <code id="new-key-value">{created.attributes.key}</code>{' '}
              <button type="button" onClick={copy}>
                {copied ? 'Copied' : 'Copy key'}
              </button>
            </p>
            <button type="button" onClick={() => setCreated(undefined)}>
              Done, hide the key
            </button>
          </div>
        )}
      </section>
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">Keys</h2>
        <label class="inline">
          <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.currentTarget.checked)} /> Show revoked keys
        </label>
        <FormErrors error={list.error ?? revokeError} />
        <table class="keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Role</th>
              <th scope="col">Mode</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(list.data?.data ?? []).map((k) => (
              <tr key={k.id} data-id={k.id}>
                <td>{k.attributes.name}</td>
                <td>
                  <code>{k.attributes.prefix}…</code>
                </td>
                <td>{k.attributes.role}</td>
                <td>{k.attributes.mode}</td>
                <td>{when(k.attributes.createdAt)}</td>
                <td>{when(k.attributes.lastUsedAt)}</td>
                <td class="actions">
                  {k.attributes.revoked ? (
                    <span class="muted">Revoked</span>
                  ) : confirming === k.id ? (
                    <>
                      <button type="button" class="danger" onClick={() => revoke(k.id)}>
                        Confirm revoke {k.attributes.name}
                      </button>
                      <button type="button" onClick={() => setConfirming(undefined)}>
                        Cancel
                      </button>
                    </>
                  ) : (
                    <button type="button" onClick={() => setConfirming(k.id)} aria-label={`Revoke ${k.attributes.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
