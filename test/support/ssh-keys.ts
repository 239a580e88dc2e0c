import { createHash, generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Real OpenSSH public keys built from Node's crypto (the wire blob of RFC 4253 / 5656 / 8709, by hand). */
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
export const sshString = (v: Buffer | string) => {
  const b = typeof v === 'string' ? Buffer.from(v, 'latin1') : v;
  return Buffer.concat([u32(b.length), b]);
};
export const sshMpint = (magnitude: Buffer) => {
  let m = magnitude;
  while (m.length > 0 && m[0] === 0) m = m.subarray(1);
  return sshString(m.length > 0 && m[0] & 0x80 ? Buffer.concat([Buffer.from([0]), m]) : m);
};
const fromB64url = (s: string) => Buffer.from(s, 'base64url');

export const line = (algorithm: string, blob: Buffer, comment?: string) => `${algorithm} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;

export function ed25519Key(comment?: string): string {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return line('ssh-ed25519', Buffer.concat([sshString('ssh-ed25519'), sshString(fromB64url(jwk.x!))]), comment);
}

export function rsaKey(bits = 2048, comment?: string): string {
  const jwk = generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'jwk' });
  return line('ssh-rsa', Buffer.concat([sshString('ssh-rsa'), sshMpint(fromB64url(jwk.e!)), sshMpint(fromB64url(jwk.n!))]), comment);
}

export function ecdsaKey(curve: 'nistp256' | 'nistp384' | 'nistp521', comment?: string): string {
  const namedCurve = { nistp256: 'P-256', nistp384: 'P-384', nistp521: 'P-521' }[curve];
  const jwk = generateKeyPairSync('ec', { namedCurve }).publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), fromB64url(jwk.x!), fromB64url(jwk.y!)]);
  const algorithm = `ecdsa-sha2-${curve}`;
  return line(algorithm, Buffer.concat([sshString(algorithm), sshString(curve), sshString(point)]), comment);
}

/** The blob of an OpenSSH line. */
export const blobOf = (key: string) => Buffer.from(key.split(' ')[1], 'base64');

const KEYGEN = ['/usr/bin/ssh-keygen', '/usr/local/bin/ssh-keygen'].find((p) => fs.existsSync(p));
export const hasSshKeygen = KEYGEN !== undefined;

/** What `ssh-keygen -l [-E md5] -f` prints as the fingerprint, or null when ssh-keygen is not installed. */
export function sshKeygenFingerprint(key: string, hash: 'sha256' | 'md5' = 'sha256'): string | null {
  if (!KEYGEN) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sshkey-'));
  const file = path.join(dir, 'key.pub');
  fs.writeFileSync(file, key + '\n');
  try {
    return execFileSync(KEYGEN, ['-E', hash, '-lf', file], { encoding: 'utf8' }).split(' ')[1];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The documented formula, for machines without ssh-keygen. */
export const formulaFingerprint = (key: string) => `SHA256:${createHash('sha256').update(blobOf(key)).digest('base64').replace(/=+$/, '')}`;

/** Independent reference: ssh-keygen when installed, else the formula. */
export const referenceFingerprint = (key: string) => sshKeygenFingerprint(key) ?? formulaFingerprint(key);
