import { z } from 'zod';
import { resourceFields } from '../shared/resource-fields';

/**
 * A member's fields (spec 2.3, DECISIONS 15): the members read model's document, and the answers of
 * its two views, a member and an invitation (a member in status `invited`). `removed` members stay
 * documents (the registry judges JWTs by them) and are never answered, so an answer's status is one of two.
 */
const stored = z.object({
  email: z.string(),
  role: z.string().describe('A built-in role, or the id of a custom role'),
  status: z.enum(['invited', 'active', 'removed']),
  createdAt: z.string(),
  /** Invitations: when the link stops working (7 days after the last send). */
  expiresAt: z.string().nullable(),
  /** Invitations: the last mail's outcome (`pending` until the process manager sent it). */
  mail: z.enum(['pending', 'sent', 'failed']).nullable(),
});
const answeredStatus = { status: z.enum(['invited', 'active']) };
const statusOf = (d: z.output<typeof stored>) => d.status as 'invited' | 'active';

export const MEMBER = resourceFields(stored, { shape: answeredStatus, replaces: ['expiresAt', 'mail'], from: (d) => ({ status: statusOf(d) }) });

/** An invitation's `expired` is computed at read time against the platform clock: its routes add it beside these. */
export const INVITATION = resourceFields(stored, {
  shape: {
    ...answeredStatus,
    expiresAt: z.string().describe('7 days after the last send; resend renews it'),
    mail: z.enum(['pending', 'sent', 'failed']).describe("The last mail's delivery to the SMTP server"),
  },
  from: (d) => ({ status: statusOf(d), expiresAt: d.expiresAt ?? '', mail: d.mail ?? 'pending' }),
});
