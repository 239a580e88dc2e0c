/** A context is registered once (CONTEXT_MODULES); its routes are keyed by the same name. */
import { CONTEXT_MODULES } from '../../../contexts/registrations';
import { httpModules, PLATFORM_ROUTES, ROUTES } from './routes';

describe('routes are keyed by registered contexts', () => {
  it('keys every route entry by a registered context (no orphan entry)', () => {
    const names = new Set(CONTEXT_MODULES.map((m) => m.name));
    expect(Object.keys(ROUTES).filter((k) => !names.has(k))).toEqual([]);
  });

  it('serves the platform routes, then each registered context\'s in registration order, every controller once', () => {
    const modules = httpModules();
    expect(modules).toEqual([PLATFORM_ROUTES, ...CONTEXT_MODULES.filter((m) => m.name in ROUTES).map((m) => ROUTES[m.name])]);
    const controllers = modules.flatMap((m) => m.controllers);
    expect(new Set(controllers).size).toBe(controllers.length);
    expect(controllers.length).toBe(Object.values(ROUTES).flatMap((m) => m.controllers).length + PLATFORM_ROUTES.controllers.length);
  });

  it('refuses routes keyed by a name no context is registered under', () => {
    expect(() => httpModules(CONTEXT_MODULES.filter((m) => m.name !== 'billing'))).toThrow(/no registered context: billing/);
  });
});
