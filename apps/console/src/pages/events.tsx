import { useEffect, useState } from 'preact/hooks';
import { api, query, type List } from '../api';
import { subscribe, type CloudEvent } from '../sse';
import { Field, FormErrors, useLoad, when } from '../ui';

interface EventAttributes {
  id: string;
  eventType: string;
  subject?: string;
  time?: string;
  position?: number;
}
const TAIL_MAX = 200;

/** The project's event history (GET /v1/events) with filters, and a live tail from the stream. */
export function Events() {
  const [filters, setFilters] = useState({ type: '', subject: '', page: 1 });
  const [draft, setDraft] = useState({ type: '', subject: '' });
  const list = useLoad(() => api.get<List<EventAttributes>>(`/v1/events${query({ type: filters.type, subject: filters.subject, page: filters.page, limit: 25 })}`), [filters.type, filters.subject, filters.page]);
  const [tail, setTail] = useState(false);
  const [tailed, setTailed] = useState<CloudEvent[]>([]);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    if (!tail) return;
    setTailed([]);
    return subscribe({ type: filters.type || undefined, subject: filters.subject || undefined }, (e) => setTailed((t) => [e, ...t].slice(0, TAIL_MAX)), setConnected);
  }, [tail, filters.type, filters.subject]);

  const meta = list.data?.meta;
  return (
    <>
      <h1>Event history</h1>
      <form
        class="filters"
        aria-label="Filter events"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters({ ...draft, page: 1 });
        }}
      >
        <Field id="ev-type" name="type" label="Event type or prefix" error={list.error} hint="e.g. compute or compute.Instance">
          {(aria) => <input {...aria} value={draft.type} onInput={(e) => setDraft((d) => ({ ...d, type: e.currentTarget.value.trim() }))} />}
        </Field>
        <Field id="ev-subject" name="subject" label="Subject (stream)" error={list.error} hint="e.g. instance-<id>">
          {(aria) => <input {...aria} value={draft.subject} onInput={(e) => setDraft((d) => ({ ...d, subject: e.currentTarget.value.trim() }))} />}
        </Field>
        <div>
          <button type="submit" class="primary">
            Apply filters
          </button>
        </div>
        <label class="inline">
          <input type="checkbox" checked={tail} onChange={(e) => setTail(e.currentTarget.checked)} /> Live tail
        </label>
      </form>
      <FormErrors error={list.error} fields={['type', 'subject']} />
      {tail && (
        <section aria-labelledby="tail-h">
          <h2 id="tail-h">Live tail</h2>
          <p class="live" aria-live="polite">
            {connected ? `Following the stream: ${tailed.length} new events.` : 'Connecting…'}
          </p>
          <EventTable rows={tailed.map((e) => ({ id: e.id, eventType: e.type, subject: e.subject, time: e.time, position: e.position }))} />
        </section>
      )}
      <section aria-labelledby="hist-h">
        <h2 id="hist-h">History</h2>
        <EventTable rows={(list.data?.data ?? []).map((d) => d.attributes)} />
        {meta && (
          <nav class="pager" aria-label="Pages">
            <button type="button" disabled={filters.page <= 1} onClick={() => setFilters((f) => ({ ...f, page: f.page - 1 }))}>
              Newer
            </button>
            <span>
              Page {meta.page} of {Math.max(meta.totalPages, 1)} ({meta.total} events)
            </span>
            <button type="button" disabled={filters.page >= meta.totalPages} onClick={() => setFilters((f) => ({ ...f, page: f.page + 1 }))}>
              Older
            </button>
          </nav>
        )}
      </section>
    </>
  );
}

function EventTable({ rows }: { rows: EventAttributes[] }) {
  if (!rows.length) return <p class="muted">No events.</p>;
  return (
    <table class="events">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Type</th>
          <th scope="col">Subject</th>
          <th scope="col">Position</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((e) => {
          const instance = /^instance-(.+)$/.exec(e.subject ?? '');
          return (
            <tr key={e.id}>
              <td>{when(e.time)}</td>
              <td>
                <code>{e.eventType}</code>
              </td>
              <td>{instance ? <a href={`#/instances/${instance[1]}`}>{e.subject}</a> : e.subject}</td>
              <td>{e.position ?? '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
