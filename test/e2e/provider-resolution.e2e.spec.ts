import { dataScope } from '../../libs/domain/shared/scope';
import { modeOfKey } from '../../libs/http/src/auth';
import { AppError } from '../../libs/application/src/errors';
import { toApiError } from '../../libs/http/src/to-api-error';
import type { Capability } from '../../libs/domain/providers/capabilities';
import { requireSameProvider, resolveProvider } from '../../usecases/providers/resolve-provider';
import { startTestServer, type Profile, type TestServer } from '../support/test-server';

/** Provider resolution for the routes of spec 4.8 to 4.10 (DECISIONS 14), on a real server and read model. */
describe.each<Profile>(['embedded', 'server'])('resolveProvider (%s profile)', (profile) => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startTestServer(profile);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  /**
   * A fresh project and a client for it, so each case sees only the providers it registers. Its first
   * key is a test key, so `projectId` is the project's test-mode data scope (DECISIONS 21).
   */
  async function project(): Promise<{ projectId: string; api: ReturnType<TestServer['as']> }> {
    const created = await srv.as(srv.bootstrap.adminKey).post('/v1/admin/projects', { name: `resolution ${Math.random().toString(36).slice(2, 8)}` });
    expect(created.status).toBe(201);
    const key: string = created.body.included[0].attributes.key;
    return { projectId: dataScope(created.body.data.id, modeOfKey(key)), api: srv.as(key) };
  }

  async function register(api: ReturnType<TestServer['as']>, name: string, body: Record<string, unknown> = {}): Promise<string> {
    const res = await api.post('/v1/providers', { name, apiKey: 'demo', ...body });
    expect(res.status).toBe(201);
    return res.body.data.id;
  }

  /** The application error a call rejects with, as the HTTP edge shows it to the client. */
  async function failure(call: Promise<unknown>): Promise<{ status: number; code: string; source: unknown }> {
    const err = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    const answer = toApiError(err)!;
    const [obj] = answer.toErrorObjects();
    return { status: answer.status, code: obj.code, source: obj.source };
  }

  const resolve = (projectId: string, providerId: string | undefined, capability: Capability) => resolveProvider(srv.platform, projectId, providerId, capability);

  it('with providerId: the project\'s enabled provider when its kind supports the operation', async () => {
    const { projectId, api } = await project();
    const bare = await register(api, 'provider_baremetal');
    const cloud = await register(api, 'provider_publiccloud');
    expect(await resolve(projectId, bare, 'vlans')).toMatchObject({ id: bare, name: 'provider_baremetal', projectId });
    expect(await resolve(projectId, cloud, 'volumes')).toMatchObject({ id: cloud, name: 'provider_publiccloud' });
    // several providers support elastic IPs: naming one picks it
    expect((await resolve(projectId, cloud, 'elastic-ips')).id).toBe(cloud);
  });

  it('with providerId: 400 UNSUPPORTED_PROVIDER when its kind lacks the capability', async () => {
    const { projectId, api } = await project();
    const bare = await register(api, 'provider_baremetal');
    const multi = await register(api, 'provider_multicloud');
    expect(await failure(resolve(projectId, bare, 'volumes'))).toEqual({ status: 400, code: 'UNSUPPORTED_PROVIDER', source: { parameter: 'providerId' } });
    expect(await failure(resolve(projectId, multi, 'vlans'))).toMatchObject({ status: 400, code: 'UNSUPPORTED_PROVIDER' });
    expect(await failure(resolve(projectId, bare, 'kubernetes'))).toMatchObject({ status: 400, code: 'UNSUPPORTED_PROVIDER' });
  });

  it('with providerId: 404 PROVIDER_NOT_FOUND for an unknown, disabled, deleted or other project\'s provider', async () => {
    const { projectId, api } = await project();
    const other = await project();
    const disabled = await register(api, 'provider_publiccloud', { enabled: false });
    const deleted = await register(api, 'provider_publiccloud');
    expect((await api.delete(`/v1/providers/${deleted}`)).status).toBe(204);
    const foreign = await register(other.api, 'provider_publiccloud');
    for (const id of ['0190c5f4-0000-7000-8000-000000000000', 'not-an-id', disabled, deleted, foreign]) {
      expect(await failure(resolve(projectId, id, 'volumes'))).toMatchObject({ status: 404, code: 'PROVIDER_NOT_FOUND' });
    }
    // the foreign provider is fine for its own project
    expect((await resolve(other.projectId, foreign, 'volumes')).id).toBe(foreign);
  });

  it('without providerId: the only enabled provider that supports the operation', async () => {
    const { projectId, api } = await project();
    const bare = await register(api, 'provider_baremetal');
    const multi = await register(api, 'provider_multicloud');
    await register(api, 'provider_publiccloud', { enabled: false });
    expect((await resolve(projectId, undefined, 'vlans')).id).toBe(bare);
    expect((await resolve(projectId, undefined, 'kubernetes')).id).toBe(multi);
    expect((await resolve(projectId, undefined, 'firewalls')).id).toBe(bare);
  });

  it('without providerId: 404 PROVIDER_NOT_FOUND when no enabled provider of the project supports it', async () => {
    const { projectId, api } = await project();
    expect(await failure(resolve(projectId, undefined, 'volumes'))).toMatchObject({ status: 404, code: 'PROVIDER_NOT_FOUND' });
    await register(api, 'provider_baremetal');
    const off = await register(api, 'provider_multicloud', { enabled: false });
    expect(await failure(resolve(projectId, undefined, 'volumes'))).toMatchObject({ status: 404, code: 'PROVIDER_NOT_FOUND' });
    // another project's provider never counts
    const other = await project();
    await register(other.api, 'provider_publiccloud');
    expect(await failure(resolve(projectId, undefined, 'buckets'))).toMatchObject({ status: 404, code: 'PROVIDER_NOT_FOUND' });
    // enabling the one that supports it makes it the choice
    expect((await api.patch(`/v1/providers/${off}`, { enabled: true })).status).toBe(200);
    expect((await resolve(projectId, undefined, 'volumes')).id).toBe(off);
  });

  it('without providerId: 400 BAD_REQUEST naming the providerId parameter when several support it', async () => {
    const { projectId, api } = await project();
    const bare = await register(api, 'provider_baremetal');
    const cloud = await register(api, 'provider_publiccloud');
    expect(await failure(resolve(projectId, undefined, 'elastic-ips'))).toEqual({ status: 400, code: 'BAD_REQUEST', source: { parameter: 'providerId' } });
    // two of the same kind are just as ambiguous
    await register(api, 'provider_baremetal');
    expect(await failure(resolve(projectId, undefined, 'vlans'))).toEqual({ status: 400, code: 'BAD_REQUEST', source: { parameter: 'providerId' } });
    // an operation only one of them supports is not ambiguous
    expect((await resolve(projectId, undefined, 'volumes')).id).toBe(cloud);
    // and naming one settles it
    expect((await resolve(projectId, bare, 'elastic-ips')).id).toBe(bare);
  });

  it('requireSameProvider: an existing resource stays on its provider; another providerId answers 404 NOT_FOUND', async () => {
    expect(() => requireSameProvider('pv-1', undefined)).not.toThrow();
    expect(() => requireSameProvider('pv-1', 'pv-1')).not.toThrow();
    let err: unknown;
    try {
      requireSameProvider('pv-1', 'pv-2', 'Volume');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect(toApiError(err)).toMatchObject({ status: 404, code: 'NOT_FOUND', detail: 'Volume not found' });
  });
});
