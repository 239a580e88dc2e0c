import { useState } from 'preact/hooks';
import type { operations } from '../../../../clients/typescript/src/generated/api';
import { api, ApiError, type List } from '../api';
import { DailyBars } from '../chart';
import { cents, FormErrors, Status, useAction, useLoad, when } from '../ui';

type StatusOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']> extends { status?: infer S } ? NonNullable<S> : never;
/** Every status of a list's `status` filter, checked against the typed client (a type only: nothing of it is bundled). */
const every =
  <S extends string>() =>
  <L extends readonly S[]>(list: L & ([S] extends [L[number]] ? unknown : never)) =>
    list;

// Each kind's list and the statuses its `status` filter takes; `hidden`: those its unfiltered list leaves out.
const KINDS: Array<{ kind: string; path: string; statuses: readonly string[]; hidden?: string[] }> = [
  { kind: 'Instances', path: '/v1/instances', statuses: every<StatusOf<'InstancesController.list'>>()(['creating', 'active', 'stopping', 'stopped', 'error', 'terminated', 'terminating', 'starting', 'provisioning']) },
  {
    kind: 'Servers',
    path: '/v1/servers',
    statuses: every<StatusOf<'ServersController.list'>>()(['active', 'creating', 'deleting', 'error', 'inactive', 'installing', 'maintenance', 'pending', 'rescued', 'rescuing', 'restarted', 'scheduled', 'starting', 'stopped', 'stopping', 'suspended', 'terminated', 'updating', 'waiting', 'migrating']),
    hidden: ['terminated'],
  },
  { kind: 'Volumes', path: '/v1/storage/volumes', statuses: every<StatusOf<'VolumeController.list'>>()(['creating', 'available', 'attaching', 'attached', 'detaching', 'deleting', 'deleted', 'error']) },
  { kind: 'Databases', path: '/v1/databases', statuses: every<StatusOf<'DatabaseController.list'>>()(['creating', 'active', 'deleting', 'deleted', 'error']) },
];
const PAGE = 100;

interface Usage {
  days: Array<{ date: string; costCents: number }>;
}

/** Every UTC day from start to end (exclusive), as YYYY-MM-DD. */
function daysBetween(start: string, end: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(start.slice(0, 10)); t < Date.parse(end); t += 86_400_000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/**
 * Each kind's count by status, exact: one page of up to 100 counted when it holds the whole list (one
 * request), else the list envelope's total of one `limit=1` request per status (the rate limit counts requests).
 */
async function resourceCounts() {
  return Promise.all(
    KINDS.map(async ({ kind, path, statuses, hidden = [] }) => {
      try {
        const list = await api.get<List<{ status?: string }>>(`${path}?limit=${PAGE}`);
        const byStatus: Record<string, number> = {};
        if (list.meta.total <= list.data.length) {
          for (const r of list.data) byStatus[r.attributes.status ?? 'unknown'] = (byStatus[r.attributes.status ?? 'unknown'] ?? 0) + 1;
        } else {
          const totals = await Promise.all(statuses.filter((s) => !hidden.includes(s)).map(async (s) => [s, (await api.get<List>(`${path}?limit=1&status=${s}`)).meta.total] as const));
          for (const [s, n] of totals) if (n > 0) byStatus[s] = n;
        }
        return { kind, total: list.meta.total, byStatus, error: undefined as string | undefined };
      } catch (err) {
        return { kind, total: 0, byStatus: {}, error: err instanceof ApiError ? err.message : 'unavailable' };
      }
    }),
  );
}

export function Overview() {
  const counts = useLoad(resourceCounts, []);
  const wallets = useLoad(() => api.get<List<{ currency: string; balanceCents: number }>>('/v1/billing/wallets'), []);
  const usage = useLoad(() => api.get<List<Usage> & { meta: { startDate: string; endDate: string; currency: string; totalCostCents: number } }>('/v1/billing/usage?limit=100'), []);
  const failed = useLoad(() => api.get<List<{ type?: string; operation?: string; resourceType?: string; resourceId?: string; error?: string | null; attempts?: number; updatedAt?: string }>>('/v1/jobs/failed?limit=20'), []);
  const [retryError, runRetry] = useAction();
  const [retried, setRetried] = useState<string[]>([]);

  const spend = (() => {
    const u = usage.data;
    if (!u) return undefined;
    const days = daysBetween(u.meta.startDate, u.meta.endDate);
    const byDay = new Map(days.map((d) => [d, 0]));
    for (const r of u.data) for (const d of r.attributes.days) byDay.set(d.date.slice(0, 10), (byDay.get(d.date.slice(0, 10)) ?? 0) + d.costCents);
    return { days, values: days.map((d) => byDay.get(d) ?? 0), currency: u.meta.currency, total: u.meta.totalCostCents };
  })();

  const retry = (id: string) =>
    runRetry(async () => {
      await api.post(`/v1/jobs/${id}/retry`);
      setRetried((r) => [...r, id]);
      failed.reload();
    });

  return (
    <>
      <h1>Overview</h1>
      <section aria-labelledby="resources-h">
        <h2 id="resources-h">Resources by kind and status</h2>
        <FormErrors error={counts.error} />
        <div class="cards">
          {(counts.data ?? []).map((c) => (
            <div class="card" key={c.kind} data-kind={c.kind}>
              <h3>
                {c.kind} <span class="count">{c.total}</span>
              </h3>
              {c.error ? (
                <p class="muted">{c.error}</p>
              ) : Object.keys(c.byStatus).length ? (
                <ul class="statuses">
                  {Object.entries(c.byStatus).map(([s, n]) => (
                    <li key={s}>
                      <Status value={s} /> {n}
                    </li>
                  ))}
                </ul>
              ) : (
                <p class="muted">None</p>
              )}
            </div>
          ))}
        </div>
      </section>
      <section aria-labelledby="balances-h">
        <h2 id="balances-h">Balances</h2>
        <FormErrors error={wallets.error} />
        <ul class="balances">
          {(wallets.data?.data ?? []).map((w) => (
            <li key={w.id}>
              <strong>{w.attributes.currency}</strong> {cents(w.attributes.balanceCents, w.attributes.currency)}
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="spend-h">
        <h2 id="spend-h">Spend per day</h2>
        <FormErrors error={usage.error} />
        {spend && (
          <>
            <p>
              This month: <strong>{cents(spend.total, spend.currency)}</strong>
            </p>
            <DailyBars days={spend.days} values={spend.values} label={`Spend per day (${spend.currency})`} format={(n) => cents(n, spend.currency)} />
          </>
        )}
      </section>
      <section aria-labelledby="failed-h">
        <h2 id="failed-h">Failed jobs</h2>
        <FormErrors error={failed.error ?? retryError} />
        {failed.data && failed.data.data.length === 0 && <p class="muted">No failed jobs.</p>}
        {failed.data && failed.data.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Type</th>
                <th scope="col">Resource</th>
                <th scope="col">Error</th>
                <th scope="col">Failed at</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {failed.data.data.map((j) => (
                <tr key={j.id}>
                  <td>
                    <code>{j.id}</code>
                  </td>
                  <td>{j.attributes.type ?? j.attributes.operation ?? '—'}</td>
                  <td>{j.attributes.resourceId ? `${j.attributes.resourceType ?? ''} ${j.attributes.resourceId}`.trim() : '—'}</td>
                  <td>
                    {j.attributes.error ?? '—'} {j.attributes.attempts ? <span class="muted">({j.attributes.attempts} attempts)</span> : null}
                  </td>
                  <td>{when(j.attributes.updatedAt)}</td>
                  <td>
                    <button type="button" onClick={() => retry(j.id)} disabled={retried.includes(j.id)} aria-label={`Retry job ${j.id}`}>
                      {retried.includes(j.id) ? 'Retrying…' : 'Retry'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
