import { useState } from 'preact/hooks';
import { ApiError, gateway, query, session, settings, type List, type Resource } from '../api';
import { CategoryBars } from '../chart';
import { Field, FormErrors, KeyTable, ShownOnce, THead, useAction, useLoad, whenMs } from '../ui';

interface GatewayKey {
  name: string;
  prefix: string;
  mode: string;
  limits: { rpm: number | null; monthlySpendCapUsd: number | null };
  revoked: boolean;
  createdAt: string;
  key?: string;
}
interface Spend {
  keyId: string;
  model: string;
  day: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}
interface Usage {
  keyId: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  createdAt: string;
}

const DAYS = 30;
// Under a cent a call is a few millionths of a dollar: shown to the micro-dollar, as the gateway counts.
const usd = (micros: number) => `$${(micros / 1_000_000).toFixed(micros > 0 && micros < 10_000 ? 6 : 2)}`;
const tokens = (n: number) => new Intl.NumberFormat('en').format(n);

/**
 * The inference gateway (another origin): organization keys are minted and revoked in a gateway
 * session, which the gateway opens for this console's credential (an owner or admin) and keeps in
 * its own HttpOnly cookie; this page never sees it. Usage and spend per model as charts.
 */
export function Gateway() {
  // With a session cookie the key list answers; without one, 401: the session is to be opened.
  const keys = useLoad(() => gateway<List<GatewayKey>>('GET', '/api/keys?limit=100&sort=-createdAt'), []);
  const open = !keys.error && keys.data !== undefined;
  const noSession = keys.error instanceof ApiError && keys.error.status === 401;
  const [sessionError, run] = useAction();
  const openSession = () => run(() => gateway('POST', '/api/session', {}, session.headers()).then(keys.reload));
  const closeSession = () => run(() => gateway('DELETE', '/api/session').then(keys.reload));

  if (!settings.gatewayUrl)
    return (
      <>
        <h1>Gateway</h1>
        <p>No inference gateway is configured for this console (GATEWAY_PUBLIC_URL).</p>
      </>
    );
  return (
    <>
      <h1>Gateway</h1>
      <p class="muted">
        The inference gateway at <code>{settings.gatewayUrl}</code>.
      </p>
      <FormErrors error={sessionError} />
      {noSession || (!open && !keys.loading) ? (
        <section class="panel" aria-labelledby="gw-session-h">
          <h2 id="gw-session-h">Gateway session</h2>
          <p>Keys are minted and revoked in a gateway session, opened with your sign-in (an owner or admin of the project) and kept by the gateway in a cookie this page cannot read.</p>
          {!noSession && <FormErrors error={keys.error} />}
          <button type="button" class="primary" onClick={openSession}>
            Open a gateway session
          </button>
        </section>
      ) : open ? (
        <>
          <p>
            Gateway session open.{' '}
            <button type="button" onClick={closeSession}>
              Close the gateway session
            </button>
          </p>
          <GatewayKeys list={keys.data!} reload={keys.reload} />
        </>
      ) : (
        <p class="muted">Loading…</p>
      )}
      {open && <UsageCharts />}
    </>
  );
}

function GatewayKeys({ list, reload }: { list: List<GatewayKey>; reload: () => void }) {
  const [form, setForm] = useState({ name: '', rpm: '', cap: '' });
  const [error, run] = useAction();
  const [minted, setMinted] = useState<Resource<GatewayKey>>();
  const [revokeError, runRevoke] = useAction();
  const mint = (e: Event) => {
    e.preventDefault();
    const limits: Record<string, number | string> = {};
    // Not a number: sent as typed, so the gateway's answer says what is wrong.
    const num = (v: string) => (v.trim() && Number.isFinite(Number(v)) ? Number(v) : v);
    if (form.rpm.trim()) limits.rpm = num(form.rpm);
    if (form.cap.trim()) limits.monthlySpendCapUsd = num(form.cap);
    return run(async () => {
      const res = await gateway<{ data: Resource<GatewayKey> }>('POST', '/api/keys', { name: form.name, ...(Object.keys(limits).length ? { limits } : {}) });
      setMinted(res.data);
      setForm({ name: '', rpm: '', cap: '' });
      reload();
    });
  };
  const revoke = (id: string) => runRevoke(() => gateway('DELETE', `/api/keys/${encodeURIComponent(id)}`).then(reload));
  const input = (id: 'name' | 'rpm' | 'cap', name: string, label: string, hint?: string) => (
    <Field id={`gw-${id}`} name={name} label={label} error={error} hint={hint}>
      {(aria) => <input {...aria} inputMode={id === 'name' ? undefined : 'decimal'} value={form[id]} onInput={(e) => setForm((f) => ({ ...f, [id]: e.currentTarget.value }))} />}
    </Field>
  );
  return (
    <>
      <section class="panel" aria-labelledby="gw-mint-h">
        <h2 id="gw-mint-h">Mint an organization key</h2>
        <form onSubmit={mint} aria-label="Mint an organization key" class="grid-form">
          {input('name', 'name', 'Key name')}
          {input('rpm', 'limits.rpm', 'Requests per minute', 'Optional')}
          {input('cap', 'limits.monthlySpendCapUsd', 'Monthly spend cap (USD)', 'Optional')}
          <FormErrors error={error} fields={['name', 'limits.rpm', 'limits.monthlySpendCapUsd']} />
          <div class="submit">
            <button type="submit" class="primary">
              Mint key
            </button>
          </div>
        </form>
        {minted?.attributes.key && (
          <ShownOnce id="new-gateway-key" value={minted.attributes.key} copyLabel="Copy key" onDone={() => setMinted(undefined)}>
            Organization key <strong>{minted.attributes.name}</strong> minted. Copy it now: it is shown only once.
          </ShownOnce>
        )}
      </section>
      <section aria-labelledby="gw-keys-h">
        <h2 id="gw-keys-h">Organization keys</h2>
        <FormErrors error={revokeError} />
        {list.data.length === 0 ? (
          <p class="muted">No keys yet.</p>
        ) : (
          <KeyTable
            kind="gateway-keys"
            rows={list.data}
            columns={[
              ['Mode', (k) => k.mode],
              ['Limits', (k) => `${k.limits.rpm ?? '∞'} rpm, cap ${k.limits.monthlySpendCapUsd === null ? 'none' : `$${k.limits.monthlySpendCapUsd}`}`],
            ]}
            onRevoke={revoke}
          />
        )}
      </section>
    </>
  );
}

/** Up to `pages` pages of a gateway list. */
async function allPages<A>(path: string, params: Record<string, string>, pages = 5): Promise<Resource<A>[]> {
  const out: Resource<A>[] = [];
  for (let page = 1; page <= pages; page++) {
    const res = await gateway<List<A>>('GET', `${path}${query({ ...params, limit: 100, page })}`);
    out.push(...res.data);
    if (page >= res.meta.totalPages) break;
  }
  return out;
}

function UsageCharts() {
  const from = new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const spend = useLoad(() => allPages<Spend>('/api/spend', { from }), []);
  const recent = useLoad(() => gateway<List<Usage>>('GET', '/api/usage?limit=10&sort=-createdAt'), []);
  const perModel = new Map<string, { input: number; output: number; cost: number; requests: number }>();
  for (const r of spend.data ?? []) {
    const m = perModel.get(r.attributes.model) ?? { input: 0, output: 0, cost: 0, requests: 0 };
    perModel.set(r.attributes.model, { input: m.input + r.attributes.inputTokens, output: m.output + r.attributes.outputTokens, cost: m.cost + r.attributes.costMicros, requests: m.requests + r.attributes.requests });
  }
  const models = [...perModel.keys()].sort();
  const rows = models.map((m) => perModel.get(m)!);
  return (
    <section aria-labelledby="gw-usage-h">
      <h2 id="gw-usage-h">Usage and spend per model, last {DAYS} days</h2>
      <FormErrors error={spend.error ?? recent.error} />
      {spend.data && models.length === 0 && <p class="muted">No usage in the last {DAYS} days.</p>}
      {models.length > 0 && (
        <div class="charts">
          <CategoryBars
            label="Tokens per model"
            categories={models}
            format={tokens}
            series={[
              { label: 'Input tokens', values: rows.map((r) => r.input), fill: '#2563ebcc', stroke: '#1d4ed8' },
              { label: 'Output tokens', values: rows.map((r) => r.output), fill: '#059669cc', stroke: '#047857' },
            ]}
          />
          <CategoryBars label="Spend per model (USD)" categories={models} format={usd} series={[{ label: 'Spend', values: rows.map((r) => r.cost), fill: '#7c3aedcc', stroke: '#6d28d9' }]} />
        </div>
      )}
      {(recent.data?.data.length ?? 0) > 0 && (
        <>
          <h3>Latest calls</h3>
          <table class="gateway-usage">
            <THead cols={['At', 'Model', 'Input tokens', 'Output tokens', 'Cost']} />
            <tbody>
              {recent.data!.data.map((u) => (
                <tr key={u.id}>
                  <td>{whenMs(u.attributes.createdAt)}</td>
                  <td>
                    <code>{u.attributes.model}</code>
                  </td>
                  <td>{tokens(u.attributes.inputTokens)}</td>
                  <td>{tokens(u.attributes.outputTokens)}</td>
                  <td>{usd(Math.round(u.attributes.costUsd * 1_000_000))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
