import { deciderSpec } from '../shared/decider-spec';
import { apiKeyDecider, type ApiKeyEvent, type IssueApiKey } from './api-key.decider';

const given = deciderSpec(apiKeyDecider);
const now = '2026-01-01T00:00:00.000Z';
const issue: IssueApiKey = {
  type: 'IssueApiKey',
  keyId: 'k1',
  projectId: 'p1',
  scope: 'project',
  name: 'ci',
  prefix: 'svc_test_ab12',
  keyHash: 'hmac-of-the-key',
  role: 'developer',
  expiresAt: '2027-01-01T00:00:00.000Z',
  now,
};
const issued: ApiKeyEvent = {
  type: 'identity.ApiKeyIssued.v1',
  data: { keyId: 'k1', projectId: 'p1', scope: 'project', name: 'ci', prefix: 'svc_test_ab12', keyHash: 'hmac-of-the-key', role: 'developer', expiresAt: '2027-01-01T00:00:00.000Z', createdAt: now },
};
const revoked: ApiKeyEvent = { type: 'identity.ApiKeyRevoked.v1', data: { keyId: 'k1', projectId: 'p1', revokedAt: '2026-01-02T00:00:00.000Z' } };
const usedAt = (at: string): ApiKeyEvent => ({ type: 'identity.ApiKeyUsed.v1', data: { keyId: 'k1', usedAt: at } });

describe('API key decider', () => {
  describe('IssueApiKey', () => {
    it('issues a new key, recording its hash and never the key', () => {
      given([]).when(issue).then([issued]);
    });

    it('issues a platform-admin key (no project) and a key that never expires', () => {
      given([])
        .when({ ...issue, projectId: null, scope: 'platform-admin', expiresAt: null })
        .then([{ type: 'identity.ApiKeyIssued.v1', data: { ...issued.data, projectId: null, scope: 'platform-admin', expiresAt: null } }]);
    });

    it('refuses an id that already exists, revoked or not', () => {
      given([issued]).when(issue).thenThrows('CONFLICT');
      given([issued, revoked]).when(issue).thenThrows('CONFLICT');
    });

    it('refuses an expiry that is not in the future', () => {
      given([]).when({ ...issue, expiresAt: now }).thenThrows('BAD_REQUEST', /future/);
      given([]).when({ ...issue, expiresAt: '2025-12-31T23:59:59.999Z' }).thenThrows('BAD_REQUEST');
    });
  });

  describe('RevokeApiKey', () => {
    const revoke = { type: 'RevokeApiKey', keyId: 'k1', projectId: 'p1', now: '2026-01-02T00:00:00.000Z' } as const;

    it('revokes an active key of the project', () => {
      given([issued]).when(revoke).then([revoked]);
      given([issued, usedAt(now)]).when(revoke).then([revoked]);
    });

    it('revokes a platform-admin key for a platform caller (no project)', () => {
      const admin: ApiKeyEvent = { type: 'identity.ApiKeyIssued.v1', data: { ...issued.data, projectId: null, scope: 'platform-admin' } };
      given([admin])
        .when({ ...revoke, projectId: null })
        .then([{ type: 'identity.ApiKeyRevoked.v1', data: { keyId: 'k1', projectId: null, revokedAt: revoke.now } }]);
    });

    it('answers NOT_FOUND for a key that is already revoked (DECISIONS 13)', () => {
      given([issued, revoked]).when(revoke).thenThrows('NOT_FOUND');
    });

    it('answers NOT_FOUND for a missing key and for another project\'s key', () => {
      given([]).when(revoke).thenThrows('NOT_FOUND');
      given([issued]).when({ ...revoke, projectId: 'p2' }).thenThrows('NOT_FOUND');
      given([issued]).when({ ...revoke, projectId: null }).thenThrows('NOT_FOUND');
    });
  });

  describe('RecordApiKeyUse', () => {
    const use = (at: string) => ({ type: 'RecordApiKeyUse', keyId: 'k1', now: at, minIntervalMs: 60_000 }) as const;

    it('records the first use of an active key', () => {
      given([issued]).when(use(now)).then([usedAt(now)]);
    });

    it('records a use no more often than minIntervalMs', () => {
      given([issued, usedAt(now)]).when(use('2026-01-01T00:00:59.999Z')).thenNothingHappens();
      given([issued, usedAt(now)]).when(use('2026-01-01T00:01:00.000Z')).then([usedAt('2026-01-01T00:01:00.000Z')]);
    });

    it('records nothing for a missing or revoked key', () => {
      given([]).when(use(now)).thenNothingHappens();
      given([issued, revoked]).when(use('2026-01-03T00:00:00.000Z')).thenNothingHappens();
    });
  });
});
