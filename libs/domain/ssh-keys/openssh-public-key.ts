import { createHash, createPublicKey } from 'node:crypto';

/**
 * OpenSSH public keys (`<algorithm> <base64 wire blob> [comment]`, RFC 4253 §6.6, RFC 5656, RFC 8709,
 * PROTOCOL.u2f). Parsing is deterministic and I/O-free, so the domain can rely on it.
 */
export type SshKeyAlgorithm =
  | 'ssh-ed25519'
  | 'ssh-rsa'
  | 'ecdsa-sha2-nistp256'
  | 'ecdsa-sha2-nistp384'
  | 'ecdsa-sha2-nistp521'
  | 'sk-ssh-ed25519@openssh.com'
  | 'sk-ecdsa-sha2-nistp256@openssh.com';

export const SSH_KEY_ALGORITHMS: readonly SshKeyAlgorithm[] = [
  'ssh-ed25519',
  'ssh-rsa',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
];

export const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 16384;

export interface OpenSshPublicKey {
  algorithm: SshKeyAlgorithm;
  /** Key size in bits (RSA modulus, curve size, 256 for Ed25519). */
  bits: number;
  /** `<algorithm> <base64>[ <comment>]`, single-spaced: what is stored and returned. */
  normalized: string;
  comment: string | null;
  /** As `ssh-keygen -l`: `SHA256:` + unpadded base64 of the SHA-256 of the blob. */
  fingerprint: string;
  /** As `ssh-keygen -l -E md5`, without its `MD5:` prefix: colon-separated hex. */
  fingerprintMd5: string;
}

export type ParseResult = { ok: true; key: OpenSshPublicKey } | { ok: false; reason: string };

const CURVES = {
  nistp256: { jwk: 'P-256', coord: 32, bits: 256 },
  nistp384: { jwk: 'P-384', coord: 48, bits: 384 },
  nistp521: { jwk: 'P-521', coord: 66, bits: 521 },
} as const;
type CurveName = keyof typeof CURVES;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

class Malformed extends Error {}

/** Reads the SSH wire types (uint32-length-prefixed strings and mpints) from a blob. */
class WireReader {
  private offset = 0;
  constructor(private readonly buf: Buffer) {}

  string(what: string): Buffer {
    if (this.offset + 4 > this.buf.length) throw new Malformed(`truncated before ${what}`);
    const len = this.buf.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (len > this.buf.length - start) throw new Malformed(`truncated ${what}`);
    this.offset = start + len;
    return this.buf.subarray(start, start + len);
  }

  text(what: string): string {
    const b = this.string(what);
    const s = b.toString('latin1');
    if (!/^[\x21-\x7e]*$/.test(s)) throw new Malformed(`${what} is not printable ASCII`);
    return s;
  }

  /** A positive mpint in its minimal two's-complement encoding; returns the magnitude bytes. */
  positiveMpint(what: string): Buffer {
    const b = this.string(what);
    if (b.length === 0) throw new Malformed(`${what} is zero`);
    if (b[0] & 0x80) throw new Malformed(`${what} is negative`);
    if (b[0] === 0 && (b.length === 1 || !(b[1] & 0x80))) throw new Malformed(`${what} is not minimally encoded`);
    return b[0] === 0 ? b.subarray(1) : b;
  }

  end(): void {
    if (this.offset !== this.buf.length) throw new Malformed('unexpected trailing data in the key blob');
  }
}

const b64url = (b: Buffer) => b.toString('base64url');

function bitLength(magnitude: Buffer): number {
  return (magnitude.length - 1) * 8 + (32 - Math.clz32(magnitude[0]));
}

function readEcPoint(r: WireReader, algorithm: string, expectedCurve: CurveName): number {
  const curve = r.text('curve name');
  if (curve !== expectedCurve) throw new Malformed(`curve ${curve} does not match ${algorithm}`);
  const q = r.string('EC point');
  const { jwk, coord, bits } = CURVES[expectedCurve];
  if (q.length !== 1 + 2 * coord || q[0] !== 0x04) throw new Malformed(`EC point is not an uncompressed ${expectedCurve} point`);
  try {
    // Node/OpenSSL rejects a point that is not on the curve.
    createPublicKey({ key: { kty: 'EC', crv: jwk, x: b64url(q.subarray(1, 1 + coord)), y: b64url(q.subarray(1 + coord)) }, format: 'jwk' });
  } catch {
    throw new Malformed(`EC point is not on curve ${expectedCurve}`);
  }
  return bits;
}

function readBlob(algorithm: SshKeyAlgorithm, blob: Buffer): number {
  const r = new WireReader(blob);
  const embedded = r.text('algorithm name');
  if (embedded !== algorithm) throw new Malformed(`the key blob is a ${embedded || 'nameless'} key, not ${algorithm}`);
  let bits: number;
  switch (algorithm) {
    case 'ssh-ed25519':
    case 'sk-ssh-ed25519@openssh.com': {
      if (r.string('Ed25519 public key').length !== 32) throw new Malformed('Ed25519 public key must be 32 bytes');
      bits = 256;
      break;
    }
    case 'ssh-rsa': {
      const e = r.positiveMpint('RSA exponent');
      const n = r.positiveMpint('RSA modulus');
      if (!(e[e.length - 1] & 1) || (e.length === 1 && e[0] < 3)) throw new Malformed('RSA exponent must be odd and at least 3');
      bits = bitLength(n);
      if (bits < MIN_RSA_BITS) throw new Malformed(`RSA keys must have at least ${MIN_RSA_BITS} bits (this one has ${bits})`);
      if (bits > MAX_RSA_BITS) throw new Malformed(`RSA keys may have at most ${MAX_RSA_BITS} bits`);
      if (!(n[n.length - 1] & 1)) throw new Malformed('RSA modulus must be odd');
      break;
    }
    case 'ecdsa-sha2-nistp256':
    case 'ecdsa-sha2-nistp384':
    case 'ecdsa-sha2-nistp521':
      bits = readEcPoint(r, algorithm, algorithm.slice('ecdsa-sha2-'.length) as CurveName);
      break;
    case 'sk-ecdsa-sha2-nistp256@openssh.com':
      bits = readEcPoint(r, algorithm, 'nistp256');
      break;
    default: {
      const never: never = algorithm;
      return never;
    }
  }
  if (algorithm.startsWith('sk-')) r.text('security key application');
  r.end();
  return bits;
}

/** Parses one OpenSSH public key line; the reason of a failure is safe to show to the client. */
export function parseOpenSshPublicKey(input: string): ParseResult {
  const text = input.trim();
  if (/[\r\n]/.test(text)) return { ok: false, reason: 'must be a single OpenSSH public key line' };
  if (/[\x00-\x08\x0b-\x1f\x7f]/.test(text)) return { ok: false, reason: 'must not contain control characters' };
  const [algorithm, data, ...rest] = text.split(/[ \t]+/);
  if (!data) return { ok: false, reason: 'must be "<algorithm> <base64 key> [comment]"' };
  if (!(SSH_KEY_ALGORITHMS as readonly string[]).includes(algorithm)) {
    return { ok: false, reason: `unsupported key type ${JSON.stringify(algorithm.slice(0, 40))}; allowed: ${SSH_KEY_ALGORITHMS.join(', ')}` };
  }
  if (!BASE64.test(data)) return { ok: false, reason: 'the key data is not valid base64' };
  const blob = Buffer.from(data, 'base64');
  let bits: number;
  try {
    bits = readBlob(algorithm as SshKeyAlgorithm, blob);
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, reason: err.message };
    throw err;
  }
  const md5 = createHash('md5').update(blob).digest('hex');
  const comment = rest.length ? rest.join(' ') : null;
  return {
    ok: true,
    key: {
      algorithm: algorithm as SshKeyAlgorithm,
      bits,
      normalized: comment ? `${algorithm} ${data} ${comment}` : `${algorithm} ${data}`,
      comment,
      fingerprint: `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`,
      fingerprintMd5: md5.match(/../g)!.join(':'),
    },
  };
}
