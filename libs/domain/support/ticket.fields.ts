import { z } from 'zod';
import { resourceFields } from '../shared/resource-fields';
import { TICKET_PRIORITIES, TICKET_STATUSES, type TicketAuthor } from './events';

/** Free text a customer writes: 1 to `max` characters, not blank. */
const text = (max: number) => z.string().min(1).max(max).refine((s) => s.trim().length > 0, { message: 'must not be blank' });

/** Events recorded before DECISIONS 17 may hold a null email: stored as recorded, answered as an empty string. */
const storedAuthor = z.object({ name: z.string(), email: z.string().nullable(), isSupport: z.boolean() }) satisfies z.ZodType<TicketAuthor>;
const author = z.object({
  name: z.string().describe("The API key's name, or the member's email"),
  email: z.string().describe("The member's email; for an API key the project owner's (DECISIONS 17)"),
  isSupport: z.boolean(),
});
const authorOf = (a: TicketAuthor) => ({ ...a, email: a.email ?? '' });

/** A support ticket's fields (spec 2.6): its read model's document, its requests and its answers. */
export const TICKET = resourceFields(
  z.object({
    number: z.string().describe('TCK-<6-digit sequence per project> (DECISIONS 17)'),
    subject: text(200),
    message: text(10000).describe('The original message'),
    status: z.enum(TICKET_STATUSES),
    priority: z.enum(TICKET_PRIORITIES),
    category: z.string().min(1).max(100).nullable(),
    replies: z.number().int().describe('How many messages were added after the original one'),
    author: storedAuthor,
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
  { shape: { author }, from: (doc) => ({ author: authorOf(doc.author) }) },
);

/** One message of a ticket's thread, as stored and as a ticket's answer shows it. */
export const TICKET_MESSAGE = resourceFields(
  z.object({ id: z.string(), content: text(10000), author: storedAuthor, timestamp: z.string() }),
  { shape: { author }, from: (doc) => ({ author: authorOf(doc.author) }) },
);
