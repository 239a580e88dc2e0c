/**
 * The data scope (DECISIONS 21): a project's live data and its test data are two disjoint tenants.
 * Every resource, stream, read-model filter, derived id and idempotency record is keyed by the scope,
 * never by the bare project id, so no route can mix the two modes:
 *
 * - live mode: the project id itself (data written before test mode existed stays where it is);
 * - test mode: `<projectId>:test`.
 *
 * What belongs to the project in both modes (its API keys, members, invitations, roles, KYC and the
 * project itself) keeps the bare project id. Events carry the scope as `projectId` (data and
 * metadata) and the mode as `metadata.mode`; what leaves the service (HTTP answers, CloudEvents on
 * topics and webhooks) shows the bare project id with `livemode`.
 */
export type Mode = 'live' | 'test';

const TEST_SUFFIX = ':test';

/** The scope of a project's data in a mode. */
export const dataScope = (projectId: string, mode: Mode): string => (mode === 'test' ? `${projectId}${TEST_SUFFIX}` : projectId);

/** The mode of a scope (or of a bare project id: live). */
export const modeOfScope = (scope: string | null | undefined): Mode => (scope?.endsWith(TEST_SUFFIX) ? 'test' : 'live');

/** The project a scope belongs to. */
export const projectOfScope = (scope: string): string => (scope.endsWith(TEST_SUFFIX) ? scope.slice(0, -TEST_SUFFIX.length) : scope);

/** Both scopes of a project (what a project-wide action, such as closing it, covers). */
export const scopesOfProject = (projectId: string): [string, string] => [dataScope(projectId, 'live'), dataScope(projectId, 'test')];

/** Test-mode work is never billed (DECISIONS 21). */
export const isBilledScope = (scope: string): boolean => modeOfScope(scope) === 'live';
