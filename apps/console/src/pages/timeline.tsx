import { useEffect, useState } from 'preact/hooks';
import { api, type List, type Resource } from '../api';
import { FormErrors, Status, useLoad, whenMs } from '../ui';

interface InstanceEvent {
  event: string;
  revision: number;
  actor: string;
  createdAt: string;
}

/**
 * A resource's timeline: its events oldest first and a slider over them; the panel shows the
 * resource as it was at the chosen event's instant (GET /v1/instances/{id}?asOf=).
 */
export function InstanceTimeline({ id }: { id: string }) {
  const events = useLoad(async () => {
    const all: Resource<InstanceEvent>[] = [];
    for (let page = 1; page <= 10; page++) {
      const res = await api.get<List<InstanceEvent>>(`/v1/instances/${encodeURIComponent(id)}/events?limit=100&page=${page}`);
      all.push(...res.data);
      if (page >= res.meta.totalPages) break;
    }
    return all.sort((a, b) => a.attributes.revision - b.attributes.revision);
  }, [id]);
  const list = events.data ?? [];
  const [index, setIndex] = useState<number>();
  useEffect(() => {
    if (list.length && index === undefined) setIndex(list.length - 1);
  }, [list.length]);
  const at = index !== undefined ? list[index]?.attributes.createdAt : undefined;
  const state = useLoad(
    () => (at ? api.get<{ data: Resource<Record<string, unknown>> }>(`/v1/instances/${encodeURIComponent(id)}?asOf=${encodeURIComponent(at)}`) : Promise.resolve(undefined)),
    [id, at],
  );
  const attrs = state.data?.data.attributes;
  return (
    <>
      <h1>Instance timeline</h1>
      <p>
        <a href="#/instances">Back to instances</a> · <code>{id}</code>
      </p>
      <FormErrors error={events.error} />
      {list.length > 0 && index !== undefined && (
        <section aria-labelledby="asof-h" class="panel">
          <h2 id="asof-h">As of {whenMs(at)}</h2>
          <label for="asof">
            Event {index + 1} of {list.length}: <code>{list[index]?.attributes.event}</code>
          </label>
          <input
            id="asof"
            type="range"
            min={0}
            max={list.length - 1}
            step={1}
            value={index}
            aria-valuetext={`${list[index]?.attributes.event} at ${whenMs(at)}`}
            onInput={(e) => setIndex(Number(e.currentTarget.value))}
          />
          <FormErrors error={state.error} />
          {attrs && (
            <dl class="asof" data-asof={at}>
              <dt>Status</dt>
              <dd>
                <Status value={String(attrs.status)} />
              </dd>
              <dt>Name</dt>
              <dd>{String(attrs.name)}</dd>
              <dt>Region</dt>
              <dd>{String(attrs.region)}</dd>
              <dt>Type</dt>
              <dd>{String(attrs.instanceType)}</dd>
              <dt>Address</dt>
              <dd>{String(attrs.ipAddress ?? '—')}</dd>
              <dt>Updated</dt>
              <dd>{whenMs(attrs.updatedAt)}</dd>
            </dl>
          )}
        </section>
      )}
      <section aria-labelledby="tl-h">
        <h2 id="tl-h">Events</h2>
        <ol class="timeline">
          {list.map((e, i) => (
            <li key={e.id} aria-current={i === index ? 'step' : undefined}>
              <button type="button" class="link" onClick={() => setIndex(i)}>
                {whenMs(e.attributes.createdAt)}: <code>{e.attributes.event}</code>
              </button>{' '}
              <span class="muted">by {e.attributes.actor}</span>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
