import { z } from 'zod';
import { principalDataScope, principalProjectId, type Principal } from '../../../../libs/http/src/auth';

/**
 * The tenant of a data route: the caller's data scope (project and mode, DECISIONS 21). Every route
 * over resources takes its tenant from here, so a test key never sees or touches live data.
 */
export const dataScopeOf = (p: Principal | null): string => principalDataScope(p) ?? '';

/** The bare project, for what a project holds in both modes: API keys, members, invitations, roles, KYC. */
export const projectIdOf = (p: Principal | null): string => principalProjectId(p) ?? '';

/**
 * An id in a path: opaque to clients, so any non-empty value up to the router's parameter limit
 * (1024) is looked up and an unknown one is a 404, never a 400.
 */
export const pathId = z.string().min(1).max(1024);
