import { AsyncLocalStorage } from 'node:async_hooks';
import type { AppError } from '../../application/src/errors';

/**
 * The instant a read runs as of (`?asOf=`, DECISIONS 20), whatever transport set it: a use case's
 * by-id reads are folded from history up to it, and caches of current state neither answer nor keep
 * them. `error`: the instant given was invalid, refused at the first read.
 */
export const asOfContext = new AsyncLocalStorage<{ at: number } | { error: AppError }>();

/** Whether the current read runs as of an instant. */
export const inAsOf = (): boolean => asOfContext.getStore() !== undefined;
