/**
 * The simulated cluster's CA: a real self-signed X.509 CA certificate (openssl and Node's
 * `X509Certificate` read it; a TLS client can trust it), built with @peculiar/x509 over WebCrypto.
 * Deterministic, as every simulator answer is: the Ed25519 key comes from the seed (a hash of the
 * cluster's id), Ed25519 signatures are deterministic, and the serial and validity are fixed by the
 * seed too, so a retried create reports the same certificate.
 */
import 'reflect-metadata'; // tsyringe, under @peculiar/x509, needs the polyfill
import * as x509 from '@peculiar/x509';
import { createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** PKCS#8 wrapping of a raw 32-byte Ed25519 private key (RFC 8410): this prefix, then the key. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519 = { name: 'Ed25519' };
/** A fixed validity (a simulated CA need not expire while anyone uses the simulator). */
const NOT_BEFORE = new Date('2024-01-01T00:00:00Z');
const NOT_AFTER = new Date('2054-01-01T00:00:00Z');

/** The CA certificate, PEM, for a 32-byte seed; `name` becomes its subject's organization. */
export async function clusterCaCertificate(seed: Buffer, name: string): Promise<string> {
  if (seed.length < 32) throw new Error('the CA seed needs 32 bytes');
  const pkcs8 = Buffer.concat([ED25519_PKCS8_PREFIX, seed.subarray(0, 32)]);
  const spki = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' });
  const keys = {
    privateKey: await webcrypto.subtle.importKey('pkcs8', pkcs8, ED25519, false, ['sign']),
    publicKey: await webcrypto.subtle.importKey('spki', spki, ED25519, true, ['verify']),
  };
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    // A positive serial (leading 0x01), from the seed's other half.
    serialNumber: `01${Buffer.from(seed.subarray(16, 31)).toString('hex')}`,
    name: [{ CN: ['kubernetes-ca'] }, { O: [name] }],
    notBefore: NOT_BEFORE,
    notAfter: NOT_AFTER,
    keys,
    signingAlgorithm: ED25519,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return `${cert.toString('pem')}\n`;
}
