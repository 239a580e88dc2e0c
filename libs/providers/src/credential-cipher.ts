import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const KEY_FILE = 'secrets-credentials.key';

/**
 * AES-256-GCM with a random 96-bit IV per secret. The vault reference is bound in as associated
 * data, so a ciphertext copied under another reference fails authentication.
 * Format: `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
export class CredentialCipher {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The credential encryption key must be 32 bytes (AES-256)');
    this.key = Buffer.from(key);
  }

  /**
   * A configured key (base64 or hex of 32 bytes), else one generated once into
   * `<dataDir>/secrets-credentials.key` (mode 0600) and reused.
   */
  static fromConfig(dataDir: string, configured?: string): CredentialCipher {
    if (configured) return new CredentialCipher(decodeKey(configured));
    const file = path.join(dataDir, KEY_FILE);
    if (!fs.existsSync(file)) {
      fs.mkdirSync(dataDir, { recursive: true });
      try {
        fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process won the race
      }
    }
    return new CredentialCipher(decodeKey(fs.readFileSync(file, 'utf8').trim()));
  }

  encrypt(plaintext: string, aad: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(sealed: string, aad: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('Unrecognised credential ciphertext');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

function decodeKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('The credential encryption key must be 32 bytes, given as base64 or hex');
  return key;
}
