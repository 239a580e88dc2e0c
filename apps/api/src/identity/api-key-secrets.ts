import { createHmac, randomBytes, randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const PROJECT_KEY_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{40}$/;
export const ADMIN_KEY_PATTERN = /^adm_[0-9A-Za-z]{40}$/;

export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export function newProjectKey(mode: 'live' | 'test'): string {
  return `svc_${mode}_${randomBase62(40)}`;
}

export function newAdminKey(): string {
  return `adm_${randomBase62(40)}`;
}

/** Keys are stored only as an HMAC keyed by a server secret, so a leaked read model cannot be replayed. */
export class KeyHasher {
  constructor(private readonly pepper: string) {}

  hash(key: string): string {
    return createHmac('sha256', this.pepper).update(key).digest('hex');
  }

  /** The configured pepper, else one generated once into the data dir (mode 0600). */
  static fromConfig(dataDir: string, configured?: string): KeyHasher {
    if (configured) return new KeyHasher(configured);
    const file = path.join(dataDir, 'secrets.json');
    if (!fs.existsSync(file)) {
      fs.mkdirSync(dataDir, { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ apiKeyPepper: randomBytes(32).toString('base64') }), { mode: 0o600, flag: 'wx' });
    }
    const { apiKeyPepper } = JSON.parse(fs.readFileSync(file, 'utf8')) as { apiKeyPepper: string };
    return new KeyHasher(apiKeyPepper);
  }
}
