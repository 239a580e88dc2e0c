import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query, type List, type ListMeta, type Resource } from './api';
import { subscribe, type CloudEvent } from './sse';
import { useLoad } from './ui';

/**
 * A page of a list that updates live from the event stream (no polling): each event of `eventType`
 * re-reads its resource (`idOf`) in place, or the page, for one not shown yet.
 */
export function useLiveList<A>(path: string, params: Record<string, string | number>, eventType: string, idOf: (e: CloudEvent) => string | undefined) {
  const [live, setLive] = useState(false);
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
  return { rows, live, list };
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
