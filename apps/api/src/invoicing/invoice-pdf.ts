import { modeOfScope, projectOfScope } from '../../../../libs/domain/shared/scope';
import PDFDocument from 'pdfkit';
import type { InvoiceDoc } from '../../../../projections/invoices/invoices.projection';

/** Integer cents as `USD 1,234.56` (never through floats). */
export function formatMoney(cents: number, currency: string): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.trunc(abs / 100).toLocaleString('en-US');
  return `${sign}${currency} ${units}.${String(abs % 100).padStart(2, '0')}`;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '-');
/** The rate as the decimal it is (0.075 → 7.5%), without float noise. */
const percent = (rate: number) => `${Number((rate * 100).toPrecision(12))}%`;

/**
 * The invoice as a PDF (DECISIONS 16), laid out with pdfkit (its standard Helvetica fonts, no file
 * access): number, issue/due/paid dates, status, one row per line item (or one "Charges" row when the
 * invoice has none), subtotal, tax with its rate, and total.
 */
export function renderInvoicePdf(invoice: InvoiceDoc): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: 50, info: { Title: `Invoice ${invoice.invoiceNumber}`, CreationDate: new Date(invoice.createdAt) } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  const left = 50;
  const cols = { description: left, quantity: 330, unit: 390, amount: 470 };

  doc.font('Helvetica-Bold').fontSize(20).text(`Invoice ${invoice.invoiceNumber}`, left, 50);
  doc.font('Helvetica').fontSize(10).moveDown(0.5);
  doc.text(`Project: ${projectOfScope(invoice.projectId)}${modeOfScope(invoice.projectId) === 'test' ? ' (test mode)' : ''}`);
  doc.text(`Issued: ${day(invoice.createdAt)}`);
  doc.text(`Due: ${day(invoice.dueDate)}`);
  doc.text(`Status: ${invoice.status}${invoice.paidAt ? ` (paid ${day(invoice.paidAt)})` : ''}`);
  if (invoice.source.kind === 'usage') doc.text(`Usage period: ${day(invoice.source.periodStart)} to ${day(invoice.source.periodEnd)} (exclusive)`);
  doc.moveDown(1.5);

  const row = (y: number, cells: [string, string, string, string], bold = false) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
    doc.text(cells[0], cols.description, y, { width: cols.quantity - cols.description - 10 });
    const after = doc.y;
    doc.text(cells[1], cols.quantity, y, { width: 50, align: 'right' });
    doc.text(cells[2], cols.unit, y, { width: 75, align: 'right' });
    doc.text(cells[3], cols.amount, y, { width: 75, align: 'right' });
    doc.y = Math.max(after, doc.y) + 4;
    if (doc.y > 760) doc.addPage();
  };
  row(doc.y, ['Description', 'Qty', 'Unit price', 'Amount'], true);
  const items = invoice.lineItems.length > 0 ? invoice.lineItems : [{ description: 'Charges', quantity: 1, unitPriceCents: invoice.amountCents }];
  for (const item of items) row(doc.y, [item.description, String(item.quantity), money(item.unitPriceCents), money(item.quantity * item.unitPriceCents)]);

  doc.moveDown(1);
  const total = (label: string, value: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(bold ? 12 : 10);
    doc.text(label, cols.unit - 80, y, { width: 150, align: 'right' });
    doc.text(value, cols.amount, y, { width: 75, align: 'right' });
    doc.moveDown(0.3);
  };
  total('Subtotal', money(invoice.amountCents));
  total(`Tax (${percent(invoice.taxRate)})`, money(invoice.taxCents));
  total('Total', money(invoice.totalCents), true);
  doc.end();
  return done;
}
