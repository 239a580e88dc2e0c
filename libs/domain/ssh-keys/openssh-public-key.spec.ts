import { generateKeyPairSync } from 'node:crypto';
import { parseOpenSshPublicKey } from './openssh-public-key';
import {
  blobOf,
  ecdsaKey,
  ed25519Key,
  formulaFingerprint,
  hasSshKeygen,
  line,
  rsaKey,
  sshKeygenFingerprint,
  sshMpint,
  sshString,
} from '../../../test/support/ssh-keys';

const parse = (key: string) => {
  const r = parseOpenSshPublicKey(key);
  if (!r.ok) throw new Error(`expected a valid key, got: ${r.reason}`);
  return r.key;
};
const reason = (key: string) => {
  const r = parseOpenSshPublicKey(key);
  if (r.ok) throw new Error('expected the key to be rejected');
  return r.reason;
};

describe('OpenSSH public keys', () => {
  const valid: Array<[string, () => string, string, number]> = [
    ['ssh-ed25519', () => ed25519Key('alice@laptop'), 'ssh-ed25519', 256],
    ['ssh-rsa 2048', () => rsaKey(2048), 'ssh-rsa', 2048],
    ['ssh-rsa 3072', () => rsaKey(3072, 'ci'), 'ssh-rsa', 3072],
    ['ecdsa nistp256', () => ecdsaKey('nistp256'), 'ecdsa-sha2-nistp256', 256],
    ['ecdsa nistp384', () => ecdsaKey('nistp384'), 'ecdsa-sha2-nistp384', 384],
    ['ecdsa nistp521', () => ecdsaKey('nistp521'), 'ecdsa-sha2-nistp521', 521],
  ];

  it.each(valid)('accepts a real %s key with the fingerprints ssh-keygen prints', (_label, make, algorithm, bits) => {
    const key = make();
    const parsed = parse(key);
    expect(parsed.algorithm).toBe(algorithm);
    expect(parsed.bits).toBe(bits);
    expect(parsed.fingerprint).toBe(formulaFingerprint(key));
    expect(parsed.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    if (hasSshKeygen) {
      expect(parsed.fingerprint).toBe(sshKeygenFingerprint(key));
      expect(`MD5:${parsed.fingerprintMd5}`).toBe(sshKeygenFingerprint(key, 'md5'));
    }
    expect(parsed.fingerprintMd5).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
  });

  it('keeps the comment, trims and single-spaces the line', () => {
    const key = ed25519Key();
    const parsed = parse(`  ${key.replace(' ', '\t')}   my  laptop \n`);
    expect(parsed.comment).toBe('my laptop');
    expect(parsed.normalized).toBe(`${key} my laptop`);
    expect(parse(key).comment).toBeNull();
  });

  it('accepts security-key (sk-) ed25519 and ecdsa keys', () => {
    const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const skEd = 'sk-ssh-ed25519@openssh.com';
    const edKey = line(skEd, Buffer.concat([sshString(skEd), sshString(Buffer.from(ed.x!, 'base64url')), sshString('ssh:')]));
    expect(parse(edKey).algorithm).toBe(skEd);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const skEc = 'sk-ecdsa-sha2-nistp256@openssh.com';
    const point = Buffer.concat([Buffer.from([4]), Buffer.from(ec.x!, 'base64url'), Buffer.from(ec.y!, 'base64url')]);
    const ecKey = line(skEc, Buffer.concat([sshString(skEc), sshString('nistp256'), sshString(point), sshString('ssh:')]));
    expect(parse(ecKey).bits).toBe(256);
    if (hasSshKeygen) expect(parse(ecKey).fingerprint).toBe(sshKeygenFingerprint(ecKey));
  });

  it('rejects an RSA key below 2048 bits', () => {
    expect(reason(rsaKey(1024))).toMatch(/at least 2048 bits \(this one has 1024\)/);
  });

  it('rejects a blob whose embedded algorithm differs from the declared one', () => {
    const ed = ed25519Key();
    expect(reason(`ssh-rsa ${ed.split(' ')[1]}`)).toMatch(/ssh-ed25519 key, not ssh-rsa/);
    const p256 = ecdsaKey('nistp256');
    expect(reason(`ecdsa-sha2-nistp384 ${p256.split(' ')[1]}`)).toMatch(/not ecdsa-sha2-nistp384/);
  });

  it('rejects structural damage: truncation, trailing bytes, wrong lengths, off-curve points', () => {
    const blob = blobOf(ed25519Key());
    expect(reason(line('ssh-ed25519', blob.subarray(0, blob.length - 1)))).toMatch(/truncated/);
    expect(reason(line('ssh-ed25519', Buffer.concat([blob, Buffer.from([0])])))).toMatch(/trailing data/);
    expect(reason(line('ssh-ed25519', Buffer.concat([sshString('ssh-ed25519'), sshString(Buffer.alloc(31, 1))])))).toMatch(/32 bytes/);
    const offCurve = Buffer.concat([Buffer.from([4]), Buffer.alloc(32, 1), Buffer.alloc(32, 2)]);
    expect(reason(line('ecdsa-sha2-nistp256', Buffer.concat([sshString('ecdsa-sha2-nistp256'), sshString('nistp256'), sshString(offCurve)])))).toMatch(/not on curve/);
    const evenModulus = Buffer.alloc(256, 0xff);
    evenModulus[255] = 0xfe;
    expect(reason(line('ssh-rsa', Buffer.concat([sshString('ssh-rsa'), sshMpint(Buffer.from([1, 0, 1])), sshMpint(evenModulus)])))).toMatch(/modulus must be odd/);
    expect(reason(line('ssh-rsa', Buffer.concat([sshString('ssh-rsa'), sshString(Buffer.from([0x80])), sshMpint(evenModulus)])))).toMatch(/negative/);
  });

  it('rejects text that is not one OpenSSH key line', () => {
    expect(reason('')).toMatch(/<algorithm> <base64 key>/);
    expect(reason('ssh-ed25519')).toMatch(/<algorithm> <base64 key>/);
    expect(reason('ssh-dss AAAAB3NzaC1kc3M=')).toMatch(/unsupported key type "ssh-dss"/);
    expect(reason('ssh-ed25519 not*base64')).toMatch(/not valid base64/);
    expect(reason('ssh-ed25519 AAAA')).toMatch(/truncated/);
    expect(reason(`${ed25519Key()}\n${ed25519Key()}`)).toMatch(/single/);
    expect(reason(`${ed25519Key()} bell\x07`)).toMatch(/control characters/);
    expect(reason('-----BEGIN PUBLIC KEY----- MCowBQYDK2VwAyEA')).toMatch(/unsupported key type/);
  });
});
