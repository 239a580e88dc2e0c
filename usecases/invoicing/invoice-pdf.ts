import PDFDocument from 'pdfkit';
import type { InvoiceDoc } from '../../projections/invoices/invoices.projection';

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

/** Who sends the invoice (configuration: INVOICE_ISSUER_*). */
export interface InvoiceIssuer {
  name: string;
  addressLines: string[];
  taxId: string | null;
  email: string | null;
  /** The footer's sentence (payment terms, where to ask). */
  footer: string;
}

/** Who the invoice is addressed to: the project, and the organization its KYC request declared, when there is one. */
export interface InvoiceRecipient {
  projectName: string;
  projectId: string;
  testMode: boolean;
  organization: { legalName: string; address: string; country: string; registrationNumber: string; contactName: string; contactEmail: string } | null;
}

const PAGE = { width: 595.28, height: 841.89, margin: 50 };
const RIGHT = PAGE.width - PAGE.margin;
const CONTENT_WIDTH = RIGHT - PAGE.margin;
/** The lowest a body line may end (the footer sits below). */
const BODY_BOTTOM = PAGE.height - PAGE.margin - 36;
const GAP = 12;
const GREY = '#555555';
const RULE = '#bbbbbb';

/**
 * The invoice as a PDF (DECISIONS 16), laid out with pdfkit (its standard Helvetica fonts, no file
 * access): the issuer and the invoice's number and dates at the head, the recipient, one row per
 * line item (or one "Charges" row when the invoice has none), subtotal, tax with its rate and total,
 * and a footer on every page. Amounts never wrap: every amount is drawn on one line, in a column as
 * wide as the widest amount measured in its font (the description column takes what is left and
 * wraps), and the totals likewise.
 */
export function renderInvoicePdf(invoice: InvoiceDoc, issuer: InvoiceIssuer, to: InvoiceRecipient): Promise<Buffer> {
  const doc = new PDFDocument({ size: 'A4', margin: PAGE.margin, bufferPages: true, info: { Title: `Invoice ${invoice.invoiceNumber}`, Author: issuer.name, CreationDate: new Date(invoice.createdAt) } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  /** One line, never wrapped, its right edge at `right`. */
  const rightAligned = (text: string, right: number, y: number) => doc.text(text, right - doc.widthOfString(text), y, { lineBreak: false });
  const font = (name: 'Helvetica' | 'Helvetica-Bold', size: number, color = 'black') => doc.font(name).fontSize(size).fillColor(color);

  // Head: the issuer on the left, the invoice's identity on the right.
  font('Helvetica-Bold', 14).text(issuer.name, PAGE.margin, PAGE.margin, { width: CONTENT_WIDTH / 2 });
  font('Helvetica', 9, GREY);
  for (const line of issuer.addressLines) doc.text(line, { width: CONTENT_WIDTH / 2 });
  if (issuer.taxId) doc.text(`Tax ID: ${issuer.taxId}`, { width: CONTENT_WIDTH / 2 });
  if (issuer.email) doc.text(issuer.email, { width: CONTENT_WIDTH / 2 });
  const issuerBottom = doc.y;

  font('Helvetica-Bold', 20);
  rightAligned('INVOICE', RIGHT, PAGE.margin);
  const facts: [string, string][] = [
    ['Invoice number', invoice.invoiceNumber],
    ['Issue date', day(invoice.createdAt)],
    ['Due date', day(invoice.dueDate)],
    ['Status', invoice.paidAt ? `${invoice.status} (${day(invoice.paidAt)})` : invoice.status],
  ];
  if (invoice.source.kind === 'usage') facts.push(['Usage period', `${day(invoice.source.periodStart)} to ${day(invoice.source.periodEnd)} (excl.)`]);
  let y = PAGE.margin + 30;
  font('Helvetica', 9);
  const valueWidth = Math.max(...facts.map(([, v]) => doc.widthOfString(v)));
  for (const [label, value] of facts) {
    font('Helvetica', 9, GREY);
    rightAligned(label, RIGHT - valueWidth - GAP, y);
    font('Helvetica', 9);
    rightAligned(value, RIGHT, y);
    y += 13;
  }

  // Bill to.
  y = Math.max(issuerBottom, y) + 18;
  doc.moveTo(PAGE.margin, y).lineTo(RIGHT, y).strokeColor(RULE).lineWidth(0.5).stroke();
  y += 12;
  font('Helvetica-Bold', 9, GREY).text('BILL TO', PAGE.margin, y);
  font('Helvetica-Bold', 11).text(to.organization?.legalName ?? to.projectName, PAGE.margin, doc.y + 2, { width: CONTENT_WIDTH / 2 });
  font('Helvetica', 9);
  const recipient: string[] = [];
  if (to.organization) {
    recipient.push(to.organization.address, to.organization.country, `Registration no. ${to.organization.registrationNumber}`, `Attn. ${to.organization.contactName} <${to.organization.contactEmail}>`);
    recipient.push(`Project: ${to.projectName}`);
  }
  recipient.push(`Project ID: ${to.projectId}${to.testMode ? ' (test mode)' : ''}`);
  for (const line of recipient) doc.text(line, PAGE.margin, doc.y, { width: CONTENT_WIDTH / 2 });
  y = doc.y + 20;

  // Line items: Qty, Unit price and Amount as wide as their widest cell, Description the rest.
  const items = invoice.lineItems.length > 0 ? invoice.lineItems : [{ description: 'Charges', quantity: 1, unitPriceCents: invoice.amountCents }];
  const rows = items.map((item) => [item.description, String(item.quantity), money(item.unitPriceCents), money(item.quantity * item.unitPriceCents)]);
  const header = ['Description', 'Qty', 'Unit price', 'Amount'];
  let size = 10;
  const widths = () => [1, 2, 3].map((c) => Math.max(doc.font('Helvetica-Bold').fontSize(size).widthOfString(header[c]), ...rows.map((r) => doc.font('Helvetica').fontSize(size).widthOfString(r[c]))));
  let [qtyW, unitW, amountW] = widths();
  // Room for descriptions even with amounts in the hundreds of billions: the table's type shrinks rather than wrap a number.
  while (size > 7 && CONTENT_WIDTH - qtyW - unitW - amountW - 3 * GAP < 160) [qtyW, unitW, amountW] = (size -= 0.5, widths());
  const right = { qty: RIGHT - amountW - unitW - 2 * GAP, unit: RIGHT - amountW - GAP, amount: RIGHT };
  const descriptionWidth = right.qty - qtyW - GAP - PAGE.margin;

  /** One table row: the description wrapping in its column, the three numbers each on one line. */
  const tableRow = (cells: string[], bold: boolean) => {
    font(bold ? 'Helvetica-Bold' : 'Helvetica', size);
    doc.text(cells[0], PAGE.margin, y, { width: descriptionWidth });
    rightAligned(cells[1], right.qty, y);
    rightAligned(cells[2], right.unit, y);
    rightAligned(cells[3], right.amount, y);
  };
  const headerRow = () => {
    doc.rect(PAGE.margin - 4, y - 4, CONTENT_WIDTH + 8, size + 8).fill('#eeeeee');
    tableRow(header, true);
    y += size + 10;
  };
  headerRow();
  for (const row of rows) {
    const height = font('Helvetica', size).heightOfString(row[0], { width: descriptionWidth });
    if (y + height > BODY_BOTTOM) {
      doc.addPage();
      y = PAGE.margin;
      headerRow();
    }
    tableRow(row, false);
    y += height + 6;
    doc.moveTo(PAGE.margin, y - 3).lineTo(RIGHT, y - 3).strokeColor('#e4e4e4').lineWidth(0.5).stroke();
  }

  // Totals: labels right-aligned against one value column, each on one line.
  const totals: [string, string, boolean][] = [
    ['Subtotal', money(invoice.amountCents), false],
    [`Tax (${percent(invoice.taxRate)})`, money(invoice.taxCents), false],
    ['Total', money(invoice.totalCents), true],
  ];
  if (y + 70 > BODY_BOTTOM) {
    doc.addPage();
    y = PAGE.margin;
  }
  y += 8;
  const totalsValueWidth = Math.max(...totals.map(([, v, bold]) => font(bold ? 'Helvetica-Bold' : 'Helvetica', bold ? 12 : 10).widthOfString(v)));
  for (const [label, value, bold] of totals) {
    if (bold) {
      doc.moveTo(RIGHT - totalsValueWidth - 120, y - 4).lineTo(RIGHT, y - 4).strokeColor('black').lineWidth(0.8).stroke();
      y += 2;
    }
    font(bold ? 'Helvetica-Bold' : 'Helvetica', bold ? 12 : 10);
    rightAligned(label, RIGHT - totalsValueWidth - GAP, y);
    rightAligned(value, RIGHT, y);
    y += bold ? 18 : 15;
  }
  font('Helvetica', 9, GREY);
  doc.text(invoice.paidAt ? `Paid on ${day(invoice.paidAt)}. Thank you.` : `Please pay ${money(invoice.totalCents)} by ${day(invoice.dueDate)}.`, PAGE.margin, y + 12, { width: CONTENT_WIDTH });

  // The footer of every page (drawn last, when the page count is known; below the body's bottom margin).
  const pages = doc.bufferedPageRange();
  for (let i = pages.start; i < pages.start + pages.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const footerY = PAGE.height - PAGE.margin - 14;
    doc.moveTo(PAGE.margin, footerY - 8).lineTo(RIGHT, footerY - 8).strokeColor(RULE).lineWidth(0.5).stroke();
    font('Helvetica', 8, GREY);
    const pageLabel = `Page ${i - pages.start + 1} of ${pages.count}`;
    const parts = [issuer.name, issuer.taxId ? `Tax ID ${issuer.taxId}` : null, `${invoice.invoiceNumber}`, issuer.footer].filter(Boolean).join('  ·  ');
    doc.text(parts, PAGE.margin, footerY, { width: CONTENT_WIDTH - doc.widthOfString(pageLabel) - GAP, height: 20, ellipsis: true });
    rightAligned(pageLabel, RIGHT, footerY);
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return done;
}
