import { v7 as uuidv7 } from 'uuid';
import { instanceDecider } from '../../libs/domain/compute/instance.decider';
import { instanceStream } from '../../libs/domain/compute/instance.events';
import { DomainError } from '../../libs/domain/shared/domain-error';
import { handleCommand } from '../../libs/eventstore/src/handle-command';
import { isoNow } from '../../libs/runtime/src/clock';
import type { RuntimeServices } from '../../libs/runtime/src/context-module';
import type { InstanceDoc } from '../../projections/instances/instances.projection';

/** The auto-stop timer's stop is a requested stop by the system; an instance that moved on meanwhile is left alone. */
export function stopIdleInstance(rt: Pick<RuntimeServices, 'events' | 'clock'>) {
  return async (doc: InstanceDoc): Promise<void> => {
    const ctx = { metadata: { projectId: doc.projectId, actor: 'system:auto-stop' } };
    const command = { type: 'RequestInstanceAction' as const, jobId: uuidv7(), action: 'stop' as const, now: isoNow(rt.clock), requestedBy: 'system:auto-stop' };
    await handleCommand(rt.events, instanceStream(doc.id), instanceDecider, command, ctx).catch((err) => {
      if (!(err instanceof DomainError && err.code === 'INVALID_STATE')) throw err;
    });
  };
}
