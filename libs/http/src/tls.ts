/** TLS material: configured pair, or a self-signed pair generated once into <dataDir>/tls/. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import selfsigned from 'selfsigned';

export interface TlsPair { key: string | Buffer; cert: string | Buffer }

export function loadOrCreateSelfSigned(dataDir: string, commonName = 'localhost'): TlsPair {
  const dir = join(dataDir, 'tls');
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  if (existsSync(keyPath) && existsSync(certPath)) return { key: readFileSync(keyPath), cert: readFileSync(certPath) };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pems = selfsigned.generate([{ name: 'commonName', value: commonName }], {
    days: 825,
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] }],
  });
  writeFileSync(keyPath, pems.private, { mode: 0o600 });
  writeFileSync(certPath, pems.cert, { mode: 0o644 });
  return { key: pems.private, cert: pems.cert };
}
