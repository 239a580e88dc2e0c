import { Command, CommandHandler, Query, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { InjectPorts } from '../inject-ports';
import { kycDecider, kycStream, type KycCommand, type KycSubmission } from '../../libs/domain/admin/kyc';
import { handleCommand, requestScopedId, type CommandContext } from '../../libs/eventstore/src/handle-command';
import { notFound } from '../../libs/application/src/errors';
import { pageOf, type ListQuery } from '../../libs/application/src/views';
import { kycRequestsProjection, type KycRequestDoc } from '../../projections/kyc-requests/kyc-requests.projection';
import { projectsProjection } from '../../projections/projects/projects.projection';
import type { PortsOf } from '../../libs/runtime/src/ports';

export const REQUEST_STATUSES = ['pending', 'approved', 'rejected'] as const;

export class SubmitKycRequest extends Command<KycRequestDoc> {
  constructor(
    readonly projectId: string,
    readonly organization: KycSubmission,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class DecideKycRequest extends Command<KycRequestDoc> {
  constructor(
    readonly kycId: string,
    readonly decision: 'approve' | 'reject',
    readonly reason: string | undefined,
    readonly decidedBy: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class GetKycStatus extends Query<{ status: string; request: KycRequestDoc | null }> {
  constructor(readonly projectId: string) {
    super();
  }
}

export class ListKycRequests extends Query<{ items: KycRequestDoc[]; total: number }> {
  constructor(readonly list: ListQuery<{ status: (typeof REQUEST_STATUSES)[number] }>) {
    super();
  }
}

async function decideAndRead(ports: PortsOf<'events' | 'readBack' | 'waitForProjections'>, projectId: string, kycId: string, command: KycCommand, context: CommandContext): Promise<KycRequestDoc> {
  const result = await handleCommand(ports.events, kycStream(projectId), kycDecider, command, context);
  await ports.waitForProjections(result.position, [kycRequestsProjection.name, projectsProjection.name]);
  const doc = await ports.readBack(kycRequestsProjection, kycStream(projectId), kycId, result.position);
  if (!doc) throw notFound(`KYC request ${kycId} not found`);
  return doc;
}

@CommandHandler(SubmitKycRequest)
export class SubmitKycRequestHandler implements ICommandHandler<SubmitKycRequest> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'readBack' | 'waitForProjections'>) {}

  execute({ projectId, organization, context }: SubmitKycRequest): Promise<KycRequestDoc> {
    const kycId = requestScopedId(context, 'kyc');
    return decideAndRead(this.ports, projectId, kycId, { type: 'SubmitKyc', kycId, projectId, organization, now: this.ports.now() }, context);
  }
}

@CommandHandler(DecideKycRequest)
export class DecideKycRequestHandler implements ICommandHandler<DecideKycRequest> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'events' | 'now' | 'projections' | 'readBack' | 'waitForProjections'>) {}

  async execute({ kycId, decision, reason, decidedBy, context }: DecideKycRequest): Promise<KycRequestDoc> {
    // The request names its project, whose stream holds it (the submit waited for this model).
    const found = await (await this.ports.projections.collection(kycRequestsProjection)).get(kycId);
    if (!found) throw notFound(`KYC request ${kycId} not found`);
    return decideAndRead(this.ports, found.projectId, kycId, { type: 'DecideKyc', kycId, projectId: found.projectId, decision, reason, decidedBy, now: this.ports.now() }, context);
  }
}

@QueryHandler(GetKycStatus)
export class GetKycStatusHandler implements IQueryHandler<GetKycStatus> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  async execute({ projectId }: GetKycStatus) {
    const project = await (await this.ports.projections.collection(projectsProjection)).get(projectId);
    const request = project?.kycRequestId ? await (await this.ports.projections.collection(kycRequestsProjection)).get(project.kycRequestId) : null;
    return { status: request?.status ?? 'none', request };
  }
}

@QueryHandler(ListKycRequests)
export class ListKycRequestsHandler implements IQueryHandler<ListKycRequests> {
  constructor(@InjectPorts() private readonly ports: PortsOf<'projections'>) {}

  execute({ list }: ListKycRequests) {
    return this.ports.projections.collection(kycRequestsProjection).then((c) => c.find({ filter: { status: list.filters.status }, ...pageOf(list) }));
  }
}

export const KYC_HANDLERS = [SubmitKycRequestHandler, DecideKycRequestHandler, GetKycStatusHandler, ListKycRequestsHandler];
