import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair, type KeyLike } from 'jose';

/**
 * The identity provider of a suite: an RS256 key pair whose public half is a JWKS file the server
 * reads (`JWT_JWKS_FILE`), and tokens signed with the private half (kid `k1`).
 */
export interface IdentityProvider {
  issuer: string;
  jwksFile: string;
  /** A token for `sub` with `claims`, valid for ten minutes from `nowSeconds`. */
  sign(sub: string, claims: Record<string, unknown>, nowSeconds?: number): Promise<string>;
  cleanup(): void;
}

export async function startIdentityProvider(issuer: string, label: string): Promise<IdentityProvider> {
  const pair = await generateKeyPair('RS256');
  const privateKey: KeyLike = pair.privateKey;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `${label}-jwks-`));
  const jwksFile = path.join(tmp, 'jwks.json');
  fs.writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] }));
  return {
    issuer,
    jwksFile,
    sign: (sub, claims, nowSeconds = Math.floor(Date.now() / 1000)) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuer(issuer).setSubject(sub).setIssuedAt(nowSeconds).setExpirationTime(nowSeconds + 600).sign(privateKey),
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true }),
  };
}
