import type { Filter } from '../../libs/readstore/src/read-store.port';
import { parseOpenSshPublicKey } from '../../libs/domain/ssh-keys/openssh-public-key';
import { sshKeyDecider, sshKeyIdFor, sshKeyStream } from '../../libs/domain/ssh-keys/ssh-key.resource';
import { logRecorder, projected } from '../../test/support/projector';
import { ed25519Key } from '../../test/support/ssh-keys';
import { sshKeysProjection } from './ssh-keys.projection';

/*
 * The shared simple-resource projection over the SSH key declaration (its upcasts and delete are
 * the templates spec's); this spec covers what SSH keys add: an id derived from the fingerprint
 * that a deleted key's re-add revives, and the list per project and provider.
 */
const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();

function addKey(name: string, providerId = 'pv1', m = 0) {
  const parsed = parseOpenSshPublicKey(ed25519Key(name));
  if (!parsed.ok) throw new Error(parsed.reason);
  const { normalized, algorithm, bits, fingerprint, fingerprintMd5 } = parsed.key;
  const id = sshKeyIdFor('p1', providerId, fingerprint);
  return { id, command: { type: 'CreateResource', id, projectId: 'p1', fields: { providerId, name, publicKey: normalized, algorithm, bits, fingerprint, fingerprintMd5 }, now: at(m) } as const };
}

describe('SSH keys read model', () => {
  it('writes a key\'s public material under its fingerprint-derived id, removes it on delete and writes it afresh when re-added', async () => {
    const log = logRecorder();
    const key = addKey('ada');
    const k = log.decided(sshKeyStream(key.id), sshKeyDecider);
    const model = await projected(sshKeysProjection);
    await model.handle(...k(key.command));
    expect(await model.get(key.id)).toEqual({ id: key.id, _position: 1, projectId: 'p1', ...key.command.fields, createdAt: at(0) });

    await model.handle(...k({ type: 'DeleteResource', id: key.id, projectId: 'p1', scope: { providerId: 'pv1' }, now: at(1) }));
    expect(await model.get(key.id)).toBeNull();
    await model.handle(...k({ ...key.command, fields: { ...key.command.fields, name: 'ada-again' }, now: at(2) }));
    expect(await model.get(key.id)).toMatchObject({ name: 'ada-again', createdAt: at(2), _position: 3 });
  });

  it('lists a project\'s keys of one provider by name, and a replay after a restart brings no deleted key back', async () => {
    const log = logRecorder();
    const a = addKey('b-key', 'pv1', 0);
    const b = addKey('a-key', 'pv1', 1);
    const c = addKey('c-key', 'pv2', 2);
    const ka = log.decided(sshKeyStream(a.id), sshKeyDecider);
    const events = [...ka(a.command), ...log.decided(sshKeyStream(b.id), sshKeyDecider)(b.command), ...log.decided(sshKeyStream(c.id), sshKeyDecider)(c.command), ...ka({ type: 'DeleteResource', id: a.id, projectId: 'p1', scope: { providerId: 'pv1' }, now: at(3) })];
    const model = await projected(sshKeysProjection);
    await model.handle(...events.slice(0, 3));
    const names = async (filter: Filter) => (await model.collection.find({ filter, sort: [{ field: 'name', direction: 1 }] })).items.map((d) => d.name);
    expect(await names({ projectId: 'p1', providerId: 'pv1' })).toEqual(['a-key', 'b-key']);
    await model.handle(events[3]);
    model.restart();
    await model.handle(...events);
    expect(await names({ projectId: 'p1', providerId: 'pv1' })).toEqual(['a-key']);
    expect(await names({ projectId: 'p1', providerId: 'pv2' })).toEqual(['c-key']);
  });
});
