import { z } from 'zod';
import { principalProjectId, type Principal } from '../../../../libs/http/src/auth';

export const projectIdOf = (p: Principal | null): string => principalProjectId(p) ?? '';

/**
 * An id in a path: opaque to clients, so any non-empty value up to the router's parameter limit
 * (1024) is looked up and an unknown one is a 404, never a 400.
 */
export const pathId = z.string().min(1).max(1024);
