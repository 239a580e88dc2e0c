import { Controller, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { INVOICE } from '../../../../libs/domain/invoicing/invoice.fields';
import { lineItemsTotal } from '../../../../libs/domain/invoicing/tax';
import type { Principal } from '../../../../libs/http/src/auth';
import { listLinksSchema, listMetaSchema, SCHEMA_NAME_MARK } from '../../../../libs/http/src/envelope';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { INVOICES_LIST, type InvoiceDoc } from '../../../../projections/invoices/invoices.projection';
import { BusController } from '../common/bus-controller';
import { pathId, dataScopeOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { CreateInvoice, GetInvoice, GetInvoicePdf, ListInvoices, PayInvoice } from '../../../../usecases/invoicing/invoices.handlers';
import { listOf } from '../../../../libs/http/src/list-query';

// ---------------------------------------------------------------- records (spec 2.9: flat)
const invoiceRecord = INVOICE.attributes.meta({ [SCHEMA_NAME_MARK]: 'Invoice' });
const one = <T extends z.ZodType>(record: T) => z.object({ data: record });
const many = <T extends z.ZodType>(record: T) => z.object({ data: z.array(record), meta: listMetaSchema, links: listLinksSchema });
const invoiceItem = (d: InvoiceDoc) => INVOICE.attributesOf(d);

// ---------------------------------------------------------------- requests
const fields = INVOICE.stored.shape;
const isoDate = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s).toISOString());
const createBody = INVOICE.stored
  .pick({ currency: true })
  .extend({
    amountCents: fields.amountCents.min(1).max(10_000_000_000_000).describe('Positive integer cents: the subtotal before tax'),
    taxRate: fields.taxRate.default(0),
    lineItems: fields.lineItems.max(200).default([]).describe('When given, their quantity × unitPriceCents must add up to amountCents'),
    dueDate: isoDate.describe('ISO 8601 date or date-time'),
    metadata: fields.metadata.default({}),
  })
  .superRefine((b, ctx) => {
    if (b.lineItems.length > 0 && lineItemsTotal(b.lineItems) !== b.amountCents) {
      ctx.addIssue({ code: 'custom', path: ['lineItems'], message: `line items add up to ${lineItemsTotal(b.lineItems)} cents, not amountCents (${b.amountCents})` });
    }
  });
const idParams = z.object({ id: pathId });
const listQuery = z.object({ status: fields.status.optional(), currency: fields.currency.optional() });
const common = { tag: 'Billing', auth: 'project' as const };
const listSpec = listOf('invoices', INVOICES_LIST);
const listRoute = route({ ...common, method: 'GET', path: '/v1/invoices', summary: "List the project's invoices", permission: 'invoices:read', list: listSpec, query: listQuery, responses: { 200: many(invoiceRecord) } });
const iamListRoute = route({ ...common, method: 'GET', path: '/v1/iam/invoices', summary: "The project's invoices (the same list as GET /v1/invoices)", permission: 'invoices:read', list: listSpec, query: listQuery, responses: { 200: many(invoiceRecord) } });
const createRoute = route({
  ...common,
  method: 'POST',
  path: '/v1/invoices',
  summary: 'Create an invoice (pending), numbered INV-<year>-000001 onwards per project',
  permission: 'invoices:write',
  type: 'invoices',
  body: createBody,
  idempotent: true,
  responses: { 201: one(invoiceRecord) },
});
const getRoute = route({ ...common, method: 'GET', path: '/v1/invoices/{id}', summary: 'Get an invoice', permission: 'invoices:read', params: idParams, responses: { 200: one(invoiceRecord) } });
const payRoute = route({
  ...common,
  method: 'PATCH',
  path: '/v1/invoices/{id}/pay',
  summary: "Pay a pending invoice from the project's wallet in its currency (status paid, paidAt set)",
  description: 'Debits the wallet by totalCents (source `invoice`, reference the invoice id): 422 INSUFFICIENT_FUNDS when the balance does not cover it; a paid invoice: 409 INVALID_STATE.',
  permission: 'invoices:write',
  type: 'invoices',
  params: idParams,
  idempotent: true,
  responses: { 200: one(invoiceRecord) },
});
const pdfRoute = route({
  ...common,
  method: 'GET',
  path: '/v1/invoices/{id}/pdf',
  summary: 'The invoice as application/pdf: number, dates, line items, subtotal, tax and total',
  permission: 'invoices:read',
  params: idParams,
  responses: { 200: z.string().describe('application/pdf') },
});

/** Invoices (spec 2.9, 4.12, DECISIONS 9): flat records. */
@Controller()
export class InvoicesController extends BusController {
  @ApiRoute(listRoute)
  list(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    return this.queries.execute(new ListInvoices(dataScopeOf(principal), list, invoiceItem));
  }

  @ApiRoute(iamListRoute)
  iamList(@CurrentPrincipal() principal: Principal, @Parsed('list') list: RouteInput<typeof iamListRoute>['list']) {
    return this.queries.execute(new ListInvoices(dataScopeOf(principal), list, invoiceItem));
  }

  @ApiRoute(createRoute)
  async create(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof createRoute>['body']) {
    return { data: invoiceItem(await this.commands.execute(new CreateInvoice(dataScopeOf(principal), body, commandContext(req, principal)))) };
  }

  @ApiRoute(getRoute)
  async get(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof getRoute>['params']) {
    return { data: invoiceItem(await this.queries.execute(new GetInvoice(dataScopeOf(principal), params.id))) };
  }

  @ApiRoute(payRoute)
  async pay(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof payRoute>['params']) {
    return { data: invoiceItem(await this.commands.execute(new PayInvoice(dataScopeOf(principal), params.id, commandContext(req, principal)))) };
  }

  @ApiRoute(pdfRoute)
  async pdf(@CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof pdfRoute>['params'], @Res({ passthrough: true }) reply: FastifyReply) {
    const { invoice, pdf } = await this.queries.execute(new GetInvoicePdf(dataScopeOf(principal), params.id));
    reply.header('content-type', 'application/pdf').header('content-disposition', `inline; filename="${invoice.invoiceNumber}.pdf"`).header('cache-control', 'private, no-store');
    return pdf;
  }
}
