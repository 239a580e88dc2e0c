import type { Platform } from './platform';

/**
 * The runtime's side of the operator's port (usecases/admin/projections.ts `ProjectionOperatorPort`,
 * matched structurally where the API provides it): this process's subscription runners with their
 * checkpoints, and its projection engine's rebuild.
 */
export function projectionOperator(platform: Pick<Platform, 'allRunners' | 'config' | 'projections'>) {
  return {
    subscriptions: () => Promise.all(platform.allRunners().map((r) => r.status())),
    runsProjections: platform.config.role !== 'api',
    projectionNames: () => platform.projections.projections.map((p) => p.name),
    rebuild: (name: string) => platform.projections.rebuild(name),
  };
}
