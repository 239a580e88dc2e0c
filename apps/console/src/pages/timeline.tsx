import { useEffect, useState } from 'preact/hooks';
import { api, query, type List, type Resource } from '../api';
import { FormErrors, Status, useLoad, whenMs } from '../ui';

/** An event of the history (GET /v1/events, DECISIONS 20): the CloudEvent, its type as eventType. */
interface HistoryEvent {
  eventType: string;
  time: string;
  position: number;
}

/**
 * The kinds with a timeline: their collection (whose single GET takes `?asOf=`), the prefix of their
 * stream (the events' `subject`, `<stream>-<id>`) and the attributes shown beside name and status.
 */
export const TIMELINES: Record<string, { title: string; stream: string; fields: Array<[string, string]> }> = {
  instances: { title: 'Instance', stream: 'instance', fields: [['Region', 'region'], ['Type', 'instanceType'], ['Address', 'ipAddress']] },
  servers: { title: 'Server', stream: 'server', fields: [['Hostname', 'hostname'], ['Site', 'site'], ['Address', 'primaryIpv4']] },
};

/** The timeline kind of a collection's name, if it has one. */
export const timelineOf = (collection: string) => (Object.hasOwn(TIMELINES, collection) ? TIMELINES[collection] : undefined);

/** The resource's history from the analysts' event history, oldest first (`sort=time`), every page. */
async function history(subject: string): Promise<Resource<HistoryEvent>[]> {
  const all: Resource<HistoryEvent>[] = [];
  for (let page = 1; page <= 10; page++) {
    const res = await api.get<List<HistoryEvent>>(`/v1/events${query({ subject, sort: 'time', limit: 100, page })}`);
    all.push(...res.data);
    if (page >= res.meta.totalPages) break;
  }
  return all;
}

/**
 * A resource's timeline: its events oldest first and a slider over them; the panel shows the
 * resource as it was at the chosen event's instant (GET /v1/<collection>/{id}?asOf=).
 */
export function Timeline({ collection, id }: { collection: string; id: string }) {
  const kind = TIMELINES[collection]!;
  const events = useLoad(() => history(`${kind.stream}-${id}`), [collection, id]);
  const list = events.data ?? [];
  const [index, setIndex] = useState<number>();
  useEffect(() => {
    if (list.length && index === undefined) setIndex(list.length - 1);
  }, [list.length]);
  const at = index !== undefined ? list[index]?.attributes.time : undefined;
  const state = useLoad(
    () => (at ? api.get<{ data: Resource<Record<string, unknown>> }>(`/v1/${collection}/${encodeURIComponent(id)}${query({ asOf: at })}`) : Promise.resolve(undefined)),
    [collection, id, at],
  );
  const attrs = state.data?.data.attributes;
  return (
    <>
      <h1>{kind.title} timeline</h1>
      <p>
        <a href={`#/${collection}`}>Back to {collection}</a> · <code>{id}</code>
      </p>
      <FormErrors error={events.error} />
      {list.length > 0 && index !== undefined && (
        <section aria-labelledby="asof-h" class="panel">
          <h2 id="asof-h">As of {whenMs(at)}</h2>
          <label for="asof">
            Event {index + 1} of {list.length}: <code>{list[index]?.attributes.eventType}</code>
          </label>
          <input
            id="asof"
            type="range"
            min={0}
            max={list.length - 1}
            step={1}
            value={index}
            aria-valuetext={`${list[index]?.attributes.eventType} at ${whenMs(at)}`}
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
              {kind.fields.map(([label, field]) => [<dt key={`${field}-t`}>{label}</dt>, <dd key={`${field}-d`}>{String(attrs[field] ?? '—')}</dd>])}
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
                {whenMs(e.attributes.time)}: <code>{e.attributes.eventType}</code>
              </button>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
