import { useState } from 'preact/hooks';
import { api, type List, type Resource } from '../api';
import { Field, FormErrors, ShownOnce, Status, useAction, useLoad, when } from '../ui';

interface Endpoint {
  type: 'webhook' | 'email';
  url: string | null;
  email: string | null;
  events: string[];
  enabled: boolean;
  createdAt: string;
  failingSince: string | null;
  lastSuccessAt: string | null;
  secret?: string | null;
}
interface Delivery {
  eventName: string;
  webhookId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: Array<{ attempt: number; at: string; success: boolean; statusCode: number | null; error: string | null }>;
  nextAttemptAt: string | null;
}

/** Webhook endpoints (DECISIONS 10): create (the signing secret shown once), delete, their deliveries and re-send. */
export function Webhooks() {
  const endpoints = useLoad(() => api.get<List<Endpoint>>('/v1/notifications/endpoints?limit=100'), []);
  const names = useLoad(() => api.get<List<{ name: string }>>('/v1/notifications/events?limit=100'), []);
  const [form, setForm] = useState({ url: '', events: ['*'] });
  const [error, run] = useAction();
  const [created, setCreated] = useState<Resource<Endpoint>>();
  const [open, setOpen] = useState<string>();
  const [actionError, runAction] = useAction();

  const create = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const res = await api.post<{ data: Resource<Endpoint> }>('/v1/notifications/endpoints', { type: 'webhook', url: form.url, events: form.events });
      setCreated(res.data);
      setForm({ url: '', events: ['*'] });
      endpoints.reload();
    });
  };
  const remove = (id: string) =>
    runAction(async () => {
      await api.delete(`/v1/notifications/endpoints/${id}`);
      if (open === id) setOpen(undefined);
      endpoints.reload();
    });

  return (
    <>
      <h1>Webhooks</h1>
      <section class="panel" aria-labelledby="newhook-h">
        <h2 id="newhook-h">Add a webhook endpoint</h2>
        <form onSubmit={create} aria-label="Add a webhook endpoint" class="grid-form">
          <Field id="hook-url" name="url" label="URL (https)" error={error}>
            {(aria) => <input {...aria} type="url" value={form.url} onInput={(e) => setForm((f) => ({ ...f, url: e.currentTarget.value }))} />}
          </Field>
          <Field id="hook-events" name="events" label="Events" error={error} hint="All events, or the ones chosen (Ctrl or Cmd to choose several)">
            {(aria) => (
              <select
                {...aria}
                multiple
                size={4}
                onChange={(e) => setForm((f) => ({ ...f, events: Array.from(e.currentTarget.selectedOptions, (o) => o.value) }))}
              >
                <option value="*" selected={form.events.includes('*')}>
                  All events (*)
                </option>
                {(names.data?.data ?? []).map((n) => (
                  <option key={n.attributes.name} value={n.attributes.name} selected={form.events.includes(n.attributes.name)}>
                    {n.attributes.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <FormErrors error={error} fields={['url', 'events']} />
          <div class="submit">
            <button type="submit" class="primary">
              Add endpoint
            </button>
          </div>
        </form>
        {created?.attributes.secret && (
          <ShownOnce id="new-hook-secret" value={created.attributes.secret} copyLabel="Copy secret" doneLabel="Done, hide the secret" onDone={() => setCreated(undefined)}>
            Endpoint added. Its signing secret is shown only now: keep it to verify the <code>webhook-signature</code> header.
          </ShownOnce>
        )}
      </section>
      <section aria-labelledby="hooks-h">
        <h2 id="hooks-h">Endpoints</h2>
        <FormErrors error={endpoints.error ?? actionError} />
        {(endpoints.data?.data ?? []).filter((e) => e.attributes.type === 'webhook').length === 0 && <p class="muted">No webhook endpoints.</p>}
        {(endpoints.data?.data ?? [])
          .filter((e) => e.attributes.type === 'webhook')
          .map((e) => (
            <div class="card endpoint" key={e.id} data-id={e.id}>
              <h3>{e.attributes.url}</h3>
              <p>
                Events: <code>{e.attributes.events.join(', ')}</code> · {e.attributes.enabled ? 'enabled' : 'disabled'} · last success {when(e.attributes.lastSuccessAt)}
                {e.attributes.failingSince && <> · failing since {when(e.attributes.failingSince)}</>}
              </p>
              <button type="button" aria-expanded={open === e.id} onClick={() => (setOpen(open === e.id ? undefined : e.id), endpoints.reload())}>
                {open === e.id ? 'Hide deliveries' : 'Deliveries'}
              </button>{' '}
              <button type="button" class="danger" onClick={() => remove(e.id)} aria-label={`Delete endpoint ${e.attributes.url}`}>
                Delete
              </button>
              {open === e.id && <Deliveries endpointId={e.id} />}
            </div>
          ))}
      </section>
    </>
  );
}

function Deliveries({ endpointId }: { endpointId: string }) {
  const list = useLoad(() => api.get<List<Delivery>>(`/v1/notifications/endpoints/${endpointId}/deliveries?limit=50`), [endpointId]);
  const [error, run] = useAction();
  const resend = (id: string) => run(() => api.post(`/v1/notifications/endpoints/${endpointId}/deliveries/${id}/resend`).then(list.reload));
  return (
    <div class="deliveries">
      <p>
        <button type="button" onClick={list.reload}>
          Refresh deliveries
        </button>
      </p>
      <FormErrors error={list.error ?? error} />
      {list.data && list.data.data.length === 0 && <p class="muted">No deliveries yet.</p>}
      {list.data && list.data.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((d) => {
              const last = d.attributes.attempts[d.attributes.attempts.length - 1];
              return (
                <tr key={d.id} data-id={d.id}>
                  <td>
                    <code>{d.attributes.eventName}</code>
                  </td>
                  <td>
                    <Status value={d.attributes.status} />
                  </td>
                  <td>{d.attributes.attempts.length}</td>
                  <td>{last ? `${last.statusCode ?? last.error ?? '—'} at ${when(last.at)}` : '—'}</td>
                  <td>
                    {d.attributes.status === 'failed' && (
                      <button type="button" onClick={() => resend(d.id)} aria-label={`Re-send ${d.attributes.eventName}`}>
                        Re-send
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
