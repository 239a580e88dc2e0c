import { startTestServer, type Profile, type TestServer } from '../support/test-server';

type Api = ReturnType<TestServer['as']>;
const organization = { legalName: 'Acme Ltd', registrationNumber: 'RC-123456', country: 'NG', address: '1 Marina, Lagos', contactName: 'Ada Obi', contactEmail: 'ada@acme.test' };
const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id);

describe.each<Profile>(['embedded', 'server'])('KYC: customer requests, admin decisions (%s profile)', (profile) => {
  let srv: TestServer;
  let admin: Api;
  let acme: Api;
  let other: Api;
  let acmeId: string;

  beforeAll(async () => {
    srv = await startTestServer(profile);
    admin = srv.as(srv.bootstrap.adminKey);
    acme = srv.as(srv.bootstrap.apiKey);
    acmeId = srv.bootstrap.projectId;
    const created = await admin.post('/v1/admin/projects', { name: 'other' });
    other = srv.as(created.body.included[0].attributes.key);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  let first: string;

  it('takes one pending request at a time (409 CONFLICT for a second), validated field by field', async () => {
    expect((await acme.get('/v1/kyc')).body.data).toEqual({ id: acmeId, type: 'kyc', attributes: { status: 'none', request: null } });
    const bad = await acme.post('/v1/kyc', { ...organization, country: 'Nigeria', contactEmail: 'nope' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual(['/contactEmail', '/country']);
    expect((await acme.post('/v1/kyc', { ...organization, shoeSize: 42 })).status).toBe(400);

    const submitted = await acme.post('/v1/kyc', organization);
    expect(submitted.status).toBe(201);
    expect(submitted.body.data).toMatchObject({ type: 'kyc-requests', attributes: { projectId: acmeId, status: 'pending', organization: { ...organization, website: null }, reason: null } });
    first = submitted.body.data.id;
    const second = await acme.post('/v1/kyc', { ...organization, legalName: 'Acme Two' });
    expect([second.status, second.body.errors[0].code]).toEqual([409, 'CONFLICT']);
    expect((await acme.get('/v1/kyc')).body.data.attributes).toMatchObject({ status: 'pending', request: { id: first, status: 'pending' } });
    // the admin sees it in the queue and on the customer; the other project has none
    expect(ids((await admin.get('/v1/admin/kyc')).body)).toEqual([first]);
    expect((await admin.get(`/v1/admin/customers/${acmeId}`)).body.data.attributes.kyc).toEqual({ status: 'pending', requestId: first });
    expect((await other.get('/v1/kyc')).body.data.attributes.status).toBe('none');
  });

  it('answers a project key 403 on the admin KYC routes', async () => {
    for (const [method, path] of [['GET', '/v1/admin/kyc'], ['POST', `/v1/admin/kyc/${first}/approve`], ['POST', `/v1/admin/kyc/${first}/reject`]] as const) {
      const r = await acme.send(method, path, method === 'POST' ? { reason: 'x' } : undefined);
      expect([path, r.status, r.body.errors[0].code]).toEqual([path, 403, 'FORBIDDEN']);
    }
  });

  it('rejects with a reason (required); deciding twice is 409 INVALID_STATE; a new request may follow', async () => {
    expect((await admin.post(`/v1/admin/kyc/${first}/reject`, {})).status).toBe(400);
    expect((await admin.post(`/v1/admin/kyc/${first}/reject`, { reason: '   ' })).status).toBe(400);
    expect((await admin.post('/v1/admin/kyc/unknown/reject', { reason: 'x' })).status).toBe(404);
    const rejected = await admin.post(`/v1/admin/kyc/${first}/reject`, { reason: 'Registration number does not match' });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data.attributes).toMatchObject({ status: 'rejected', reason: 'Registration number does not match', decidedAt: expect.any(String) });
    for (const again of [await admin.post(`/v1/admin/kyc/${first}/reject`, { reason: 'again' }), await admin.post(`/v1/admin/kyc/${first}/approve`)]) {
      expect([again.status, again.body.errors[0].code]).toEqual([409, 'INVALID_STATE']);
    }
    expect((await acme.get('/v1/kyc')).body.data.attributes).toMatchObject({ status: 'rejected', request: { id: first, reason: 'Registration number does not match' } });
    expect((await admin.get('/v1/admin/kyc')).body.data).toEqual([]);
    expect(ids((await admin.get('/v1/admin/kyc?status=rejected')).body)).toEqual([first]);
  });

  it('approves a new request once; after an approval no request is taken (409 INVALID_STATE)', async () => {
    const resubmitted = await acme.post('/v1/kyc', { ...organization, registrationNumber: 'RC-654321' });
    expect(resubmitted.status).toBe(201);
    const id = resubmitted.body.data.id;
    const approved = await admin.post(`/v1/admin/kyc/${id}/approve`);
    expect([approved.status, approved.body.data.attributes.status]).toEqual([200, 'approved']);
    expect((await admin.post(`/v1/admin/kyc/${id}/approve`)).status).toBe(409);
    expect((await acme.get('/v1/kyc')).body.data.attributes).toMatchObject({ status: 'approved', request: { id } });
    expect((await admin.get(`/v1/admin/customers/${acmeId}`)).body.data.attributes.kyc).toEqual({ status: 'approved', requestId: id });
    expect(ids((await admin.get('/v1/admin/customers?kycStatus=approved')).body)).toEqual([acmeId]);
    const after = await acme.post('/v1/kyc', organization);
    expect([after.status, after.body.errors[0].code]).toEqual([409, 'INVALID_STATE']);
    const page = await admin.get('/v1/admin/kyc?status=approved&limit=1&sort=-updatedAt');
    expect(page.body.meta).toEqual({ page: 1, limit: 1, total: 1, totalPages: 1 });
    expect(ids((await admin.get('/v1/admin/kyc?status=approved&sort=-status')).body)).toEqual([id]);
  });
});
