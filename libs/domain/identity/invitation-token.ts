/**
 * The one-time link of an invitation: `inv.<project>.<invitation>.<secret>` (ids base64url). The
 * secret is a keyed hash of the ids, so the mail process manager re-derives the link from the event
 * after a crash and no store ever holds it; events hold only a keyed hash of the whole token.
 * `keyed` is the server's HMAC (the API-key pepper); this module stays free of keys and I/O.
 */
export type Keyed = (text: string) => string;

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const unb64 = (s: string) => Buffer.from(s, 'base64url').toString('utf8');
const TOKEN = /^inv\.([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{1,200})\.([0-9a-f]{48})$/;

export function invitationToken(keyed: Keyed, projectId: string, invitationId: string): string {
  return `inv.${b64(projectId)}.${b64(invitationId)}.${keyed(`invitation-secret:${projectId}:${invitationId}`).slice(0, 48)}`;
}

/** The token with its secret part left out, as logs may show it. */
export const redactedInvitationToken = (projectId: string, invitationId: string) => `inv.${b64(projectId)}.${b64(invitationId)}.<secret omitted>`;

/** The ids a token names (unverified: the caller compares the keyed hash), or null for anything malformed. */
export function parseInvitationToken(token: string): { projectId: string; invitationId: string } | null {
  const m = TOKEN.exec(token);
  if (!m) return null;
  const [projectId, invitationId] = [unb64(m[1]), unb64(m[2])];
  return /^[\x21-\x7e]{1,128}$/.test(projectId) && /^[\x21-\x7e]{1,128}$/.test(invitationId) ? { projectId, invitationId } : null;
}

export const invitationTokenHash = (keyed: Keyed, token: string) => keyed(`invitation-token:${token}`);
