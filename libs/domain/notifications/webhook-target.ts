import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may go (DECISIONS 10). `allowPrivate` is the operator setting
 * (`WEBHOOKS_ALLOW_PRIVATE_TARGETS`): it allows loopback, link-local and private addresses, and
 * plain `http` with them (receivers inside an operator's own network, and tests, seldom have TLS).
 * Without it: `https` only, and no address outside public unicast.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return { ok: false, reason: 'url must use https' };
  if (url.username || url.password) return { ok: false, reason: 'url must not carry credentials' };
  // The name as DNS sees it: `localhost.` (a fully qualified name) and `LOCALHOST` are `localhost`.
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (ipaddr.isValid(host)) {
    const refusal = addressRefusal(host, allowPrivate);
    if (refusal) return { ok: false, reason: refusal };
  } else if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) {
    return { ok: false, reason: 'url must not point at loopback, link-local or private addresses' };
  }
  return { ok: true, url };
}

/** Why an address may not be sent to (anything but public unicast), or null. */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  if (allowPrivate) return null;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `url must not point at loopback, link-local or private addresses (${address} is ${range})`;
}
