import { createHmac, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

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
      try {
        fs.writeFileSync(file, JSON.stringify({ apiKeyPepper: randomBytes(32).toString('base64') }), { mode: 0o600, flag: 'wx' });
      } catch (err) {
        // Another process (or the invitation mailer beside the API) wrote it first: use theirs.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    const { apiKeyPepper } = JSON.parse(fs.readFileSync(file, 'utf8')) as { apiKeyPepper: string };
    return new KeyHasher(apiKeyPepper);
  }
}
