import { useState } from 'preact/hooks';
import { api, ApiError, query, session } from '../api';
import { cents, FormErrors, Status, useLoad, when } from '../ui';

/** An invoice as GET /v1/invoices lists it (flat, not JSON:API attributes). */
interface Invoice {
  id: string;
  invoiceNumber: string;
  currency: string;
  totalCents: number;
  status: string;
  dueDate: string | null;
  createdAt: string;
}

/**
 * Fetches the PDF with the key header (a plain link could not carry it) and hands it to the
 * browser as a download of a blob: URL.
 */
async function downloadPdf(inv: Invoice): Promise<void> {
  const res = await fetch(`/v1/invoices/${encodeURIComponent(inv.id)}/pdf`, { headers: { ...session.headers(), accept: 'application/pdf' }, cache: 'no-store' });
  if (!res.ok) {
    const body = await res.json().catch(() => undefined);
    throw new ApiError(res.status, body?.errors ?? [{ detail: `The API answered ${res.status}` }]);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `${inv.invoiceNumber}.pdf`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function Invoices() {
  const [status, setStatus] = useState('');
  const list = useLoad(() => api.get<{ data: Invoice[]; meta: { total: number } }>(`/v1/invoices${query({ status, limit: 100 })}`), [status]);
  const [error, setError] = useState<unknown>();
  return (
    <>
      <h1>Invoices</h1>
      <form class="filters" aria-label="Filter invoices" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="inv-status">Status</label>
          <select id="inv-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Any</option>
            {['pending', 'paid'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </form>
      <FormErrors error={list.error ?? error} />
      {list.data && list.data.data.length === 0 && <p class="muted">No invoices.</p>}
      {list.data && list.data.data.length > 0 && (
        <table class="invoices">
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Status</th>
              <th scope="col">Total</th>
              <th scope="col">Issued</th>
              <th scope="col">Due</th>
              <th scope="col">PDF</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((inv) => (
              <tr key={inv.id} data-id={inv.id}>
                <td>{inv.invoiceNumber}</td>
                <td>
                  <Status value={inv.status} />
                </td>
                <td>{cents(inv.totalCents, inv.currency)}</td>
                <td>{when(inv.createdAt)}</td>
                <td>{when(inv.dueDate)}</td>
                <td>
                  <button type="button" onClick={() => downloadPdf(inv).then(() => setError(undefined), setError)} aria-label={`Download PDF of ${inv.invoiceNumber}`}>
                    Download PDF
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
