import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query, type List, type ListMeta, type Resource } from './api';
import { subscribe, type CloudEvent } from './sse';
import type { ComponentChildren } from 'preact';
import { Field, FormErrors, SelectField, useLoad } from './ui';

const PAGE_SIZE = 10;

/**
 * A page of a list that updates live from the event stream (no polling): each event of `eventType`
 * (`compute.Instance`) re-reads its resource (`<kind>Id` in the event's data, else its subject
 * `<kind>-<id>`) in place, or the page, for one not shown yet. Changing a filter goes back to page 1.
 */
export function useLiveList<A, F extends Record<string, string>>(path: string, kind: string, eventType: string, initial: F) {
  const [live, setLive] = useState(false);
  const [filters, setFilters] = useState({ ...initial, page: 1 });
  const set = (patch: Partial<F>) => setFilters((f) => ({ ...f, page: 1, ...patch }));
  const setPage = (page: number) => setFilters((f) => ({ ...f, page }));
  const idOf = (e: CloudEvent) => (e.data?.[`${kind}Id`] as string | undefined) ?? (e.subject?.startsWith(`${kind}-`) ? e.subject.slice(kind.length + 1) : undefined);
  const params: Record<string, string | number> = { ...filters, limit: PAGE_SIZE };
  const list = useLoad(() => api.get<List<A>>(`${path}${query(params)}`), Object.values(params));
  const [rows, setRows] = useState<Resource<A>[]>([]);
  useEffect(() => {
    if (list.data) setRows(list.data.data);
  }, [list.data]);
  const reload = useRef(list.reload);
  reload.current = list.reload;
  useEffect(
    () =>
      subscribe(
        { type: eventType },
        (e) => {
          const id = idOf(e);
          if (!id) return;
          api.get<{ data: Resource<A> }>(`${path}/${encodeURIComponent(id)}`).then(
            ({ data }) =>
              setRows((rs) => {
                if (rs.some((r) => r.id === id)) return rs.map((r) => (r.id === id ? data : r));
                reload.current();
                return rs;
              }),
            () => reload.current(),
          );
        },
        setLive,
      ),
    [],
  );
  return { rows, live, list, filters, set, setPage };
}

export function LiveNote({ live }: { live: boolean }) {
  return (
    <p class="live" aria-live="polite">
      {live ? 'Live: updates arrive from the event stream.' : 'Connecting to the event stream…'}
    </p>
  );
}

export function Pager({ meta, page, setPage, noun }: { meta: ListMeta | undefined; page: number; setPage: (p: number) => void; noun: string }) {
  if (!meta) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {meta.page} of {Math.max(meta.totalPages, 1)} ({meta.total} {noun})
      </span>
      <button type="button" disabled={page >= meta.totalPages} onClick={() => setPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** A filter of a live list: a picker when it has options (`[value, label]` or plain values), else a text input. */
export interface FilterControl<F> {
  name: keyof F & string;
  label: string;
  options?: Array<string | [string, string]>;
  placeholder?: string;
}

/**
 * A page of a live list (instances, servers): its heading, the stream's state, the create form, then
 * the list with its filters, errors, rows (`children`, or "No … match.") and pager.
 */
export function LiveListPage<A, F extends Record<string, string>>(props: {
  title: string;
  noun: string;
  create: ComponentChildren;
  view: ReturnType<typeof useLiveList<A, F>>;
  controls: FilterControl<F>[];
  error: unknown;
  children: ComponentChildren;
}) {
  const { title, noun, create, view, controls, error, children } = props;
  const { live, list, rows, filters, set, setPage } = view;
  const value = (name: keyof F & string) => String(filters[name]);
  return (
    <>
      <h1>{title}</h1>
      <LiveNote live={live} />
      {create}
      <section aria-labelledby="list-h">
        <h2 id="list-h">Your {noun}</h2>
        <form class="filters" aria-label={`Filter ${noun}`} onSubmit={(e) => e.preventDefault()}>
          {controls.map((c) =>
            c.options ? (
              <SelectField key={c.name} id={`f-${c.name}`} label={c.label} value={value(c.name)} options={c.options} onChange={(v) => set({ [c.name]: v } as Partial<F>)} />
            ) : (
              <Field key={c.name} id={`f-${c.name}`} label={c.label}>
                {(aria) => <input {...aria} value={value(c.name)} onChange={(e) => set({ [c.name]: e.currentTarget.value.trim() } as Partial<F>)} placeholder={c.placeholder} />}
              </Field>
            ),
          )}
        </form>
        <FormErrors error={list.error ?? error} />
        {rows.length === 0 ? <p class="muted">No {noun} match.</p> : children}
        <Pager meta={list.data?.meta} page={filters.page} setPage={setPage} noun={noun} />
      </section>
    </>
  );
}
