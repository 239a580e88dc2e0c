import { Controller, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { kycSubmissionSchema } from '../../../../libs/domain/admin/kyc';
import { principalActor, type Principal } from '../../../../libs/http/src/auth';
import { collectionSchema, resource, resourceSchema } from '../../../../libs/http/src/envelope';
import { listOf } from '../../../../libs/http/src/list-query';
import { listResult } from '../../../../libs/http/src/list-result';
import { ApiRoute, CurrentPrincipal, Parsed, route, type RouteInput } from '../../../../libs/http/src/route';
import { KYC_LIST, type KycRequestDoc } from '../../../../projections/kyc-requests/kyc-requests.projection';
import { BusController } from '../common/bus-controller';
import { pathId, projectIdOf } from '../common/resource-lifecycle';
import { commandContext } from '../identity/request-context';
import { DecideKycRequest, GetKycStatus, ListKycRequests, REQUEST_STATUSES, SubmitKycRequest } from '../../../../usecases/admin/kyc';

const TYPE = 'kyc-requests';

const requestAttributes = z.object({
  projectId: z.string(),
  organization: z.object({ legalName: z.string(), registrationNumber: z.string(), country: z.string(), address: z.string(), contactName: z.string(), contactEmail: z.string(), website: z.string().nullable() }),
  status: z.enum(REQUEST_STATUSES),
  reason: z.string().nullable().describe("A rejection's reason"),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const attributesOf = (d: KycRequestDoc): z.infer<typeof requestAttributes> => ({ projectId: d.projectId, organization: d.organization, status: d.status, reason: d.reason, decidedAt: d.decidedAt, createdAt: d.createdAt, updatedAt: d.updatedAt });
const requestResource = (d: KycRequestDoc) => ({ id: d.id, type: TYPE, attributes: attributesOf(d) });
const requestDocument = (d: KycRequestDoc) => resource(TYPE, d.id, attributesOf(d));

const statusAttributes = z.object({ status: z.enum(['none', ...REQUEST_STATUSES]).describe("The latest request's status, none before the first"), request: requestAttributes.extend({ id: z.string() }).nullable() });


const customer = { tag: 'KYC', auth: 'project' } as const;
const submitRoute = route({
  ...customer,
  method: 'POST',
  path: '/v1/kyc',
  summary: "Submit the organization's details for verification (KYC; one pending request at a time)",
  description: 'A second request while one is pending is 409 CONFLICT; after an approval, 409 INVALID_STATE; after a rejection a new request may be submitted.',
  permission: 'kyc:write',
  type: TYPE,
  body: kycSubmissionSchema,
  idempotent: true,
  responses: { 201: resourceSchema(TYPE, requestAttributes) },
});
const statusRoute = route({
  ...customer,
  method: 'GET',
  path: '/v1/kyc',
  summary: "The project's verification status and its latest request",
  permission: 'kyc:read',
  responses: { 200: resourceSchema('kyc', statusAttributes) },
});

const admin = { tag: 'Admin', auth: 'admin' } as const;
const idParams = z.object({ id: pathId });
const listRoute = route({
  ...admin,
  method: 'GET',
  path: '/v1/admin/kyc',
  summary: 'KYC requests, pending ones by default (platform admin)',
  list: listOf(TYPE, KYC_LIST),
  query: z.object({ status: z.enum(REQUEST_STATUSES).default('pending') }),
  responses: { 200: collectionSchema(TYPE, requestAttributes) },
});
const approveRoute = route({
  ...admin,
  method: 'POST',
  path: '/v1/admin/kyc/{id}/approve',
  summary: 'Approve a pending KYC request (platform admin); deciding twice is 409 INVALID_STATE',
  params: idParams,
  responses: { 200: resourceSchema(TYPE, requestAttributes) },
});
const rejectRoute = route({
  ...admin,
  method: 'POST',
  path: '/v1/admin/kyc/{id}/reject',
  summary: 'Reject a pending KYC request with a reason (platform admin); deciding twice is 409 INVALID_STATE',
  type: TYPE,
  params: idParams,
  body: z.object({ reason: z.string().trim().min(1).max(1000) }).strict(),
  responses: { 200: resourceSchema(TYPE, requestAttributes) },
});

@Controller()
export class KycController extends BusController {
  @ApiRoute(submitRoute)
  async submit(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('body') body: RouteInput<typeof submitRoute>['body']) {
    return requestDocument(await this.commands.execute(new SubmitKycRequest(projectIdOf(principal), body, commandContext(req, principal))));
  }

  @ApiRoute(statusRoute)
  async status(@CurrentPrincipal() principal: Principal) {
    const projectId = projectIdOf(principal);
    const { status, request } = await this.queries.execute(new GetKycStatus(projectId));
    return resource('kyc', projectId, { status, request: request && { id: request.id, ...attributesOf(request) } });
  }

  @ApiRoute(listRoute)
  async list(@Parsed('list') list: RouteInput<typeof listRoute>['list']) {
    const { items, total } = await this.queries.execute(new ListKycRequests(list));
    return listResult(items.map(requestResource), total);
  }

  @ApiRoute(approveRoute)
  async approve(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof approveRoute>['params']) {
    return requestDocument(await this.commands.execute(new DecideKycRequest(params.id, 'approve', undefined, principalActor(principal), commandContext(req, principal))));
  }

  @ApiRoute(rejectRoute)
  async reject(@Req() req: FastifyRequest, @CurrentPrincipal() principal: Principal, @Parsed('params') params: RouteInput<typeof rejectRoute>['params'], @Parsed('body') body: RouteInput<typeof rejectRoute>['body']) {
    return requestDocument(await this.commands.execute(new DecideKycRequest(params.id, 'reject', body.reason, principalActor(principal), commandContext(req, principal))));
  }
}
