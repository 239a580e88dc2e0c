import { z } from 'zod';
import { DomainError } from '../shared/domain-error';

/** What an assign, attach or move names (DECISIONS 14), as a networking resource records it. */
export const networkTargetSchema = z.object({ targetType: z.enum(['instance', 'server']), targetId: z.string().min(1).max(1024) });
export type NetworkTarget = z.output<typeof networkTargetSchema>;

/** The target a request's args name (the handler resolved it: it exists in the project). */
export const targetOf = (args: Record<string, unknown>): NetworkTarget => ({ targetType: args.targetType as NetworkTarget['targetType'], targetId: String(args.targetId) });

export const sameTarget = (a: NetworkTarget, b: NetworkTarget): boolean => a.targetType === b.targetType && a.targetId === b.targetId;

/** A resource held by several targets (a VLAN's servers, a firewall's instances): the same one twice is a conflict. */
export const notYetHeld =
  (label: string) =>
  (fields: { targets: NetworkTarget[] }, args: Record<string, unknown>): DomainError | null => {
    const t = targetOf(args);
    return fields.targets.some((x) => sameTarget(x, t)) ? new DomainError('CONFLICT', `${t.targetType} ${t.targetId} is already assigned to this ${label}`) : null;
  };

/** The completion of an assign or attach: the target joins the list (once). */
export const withTarget = <F extends { targets: NetworkTarget[] }>(fields: F, args: Record<string, unknown>): F => {
  const t = targetOf(args);
  return { ...fields, targets: [...fields.targets.filter((x) => !sameTarget(x, t)), t] };
};
