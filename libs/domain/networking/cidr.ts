import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * IPv4 and IPv6 CIDR blocks (DECISIONS 14): parsed with ipaddr.js, but only in their usual textual
 * forms. ipaddr.js also reads `10/8`, `0xa.0.0.0/8`, octal `010.…` and zone ids (`fe80::1%eth0`);
 * those are refused here, so one network has few spellings and the canonical one is stored.
 */
export type IpFamily = 'ipv4' | 'ipv6';

export interface Cidr {
  readonly family: IpFamily;
  /** The network address, canonical: dotted decimal, or RFC 5952 for IPv6 (`fd00::`). */
  readonly network: string;
  readonly prefixLength: number;
}

export interface IpAddress {
  readonly family: IpFamily;
  /** Canonical form, as for `Cidr.network`. */
  readonly address: string;
}

export type CidrResult = { ok: true; cidr: Cidr } | { ok: false; reason: string };
export type IpResult = { ok: true; ip: IpAddress } | { ok: false; reason: string };

const MAX_PREFIX: Record<IpFamily, number> = { ipv4: 32, ipv6: 128 };
/** `ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255/128` is the longest spelling. */
export const MAX_CIDR_LENGTH = 49;
const PREFIX = /^(?:0|[1-9][0-9]{0,2})$/;

/** RFC 1918 and RFC 4193 (fc00::/7, which holds the fd00::/8 locally assigned half). */
export const PRIVATE_RANGES: readonly string[] = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

const NOT_A_CIDR = 'must be an IPv4 or IPv6 CIDR, e.g. 10.0.0.0/16 or fd00::/8';
const NOT_AN_IP = 'must be an IPv4 or IPv6 address, e.g. 10.0.0.5 or fd00::5';

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

/** RFC 5952, whose section 5 keeps the dotted tail of IPv4-mapped addresses (`::ffff:10.0.0.0`). */
function canonical(a: Addr): string {
  if (a.kind() === 'ipv4') return a.toString();
  const v6 = a as ipaddr.IPv6;
  return v6.isIPv4MappedAddress() ? `::ffff:${v6.toIPv4Address().toString()}` : v6.toRFC5952String();
}

function parseAddress(text: string): Addr | null {
  if (text.includes(':')) return ipaddr.IPv6.isValid(text) && !text.includes('%') ? ipaddr.IPv6.parse(text) : null;
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null;
}

function networkOf(address: Addr, prefixLength: number): Addr {
  const bytes = address.toByteArray();
  const out = bytes.map((byte, i) => {
    const bitsHere = Math.min(8, Math.max(0, prefixLength - i * 8));
    return byte & ((0xff << (8 - bitsHere)) & 0xff);
  });
  return ipaddr.fromByteArray(out);
}

/** Parses `<address>/<prefix>`; a block with host bits set is refused, naming the block meant. */
export function parseCidr(input: string): CidrResult {
  const slash = input.indexOf('/');
  if (slash === -1 || slash !== input.lastIndexOf('/')) return { ok: false, reason: NOT_A_CIDR };
  const address = parseAddress(input.slice(0, slash));
  const prefixText = input.slice(slash + 1);
  if (!address || !PREFIX.test(prefixText)) return { ok: false, reason: NOT_A_CIDR };
  const family = address.kind();
  const prefixLength = Number(prefixText);
  if (prefixLength > MAX_PREFIX[family]) {
    return { ok: false, reason: `the prefix length of an ${family === 'ipv4' ? 'IPv4' : 'IPv6'} CIDR is 0 to ${MAX_PREFIX[family]}` };
  }
  const network = networkOf(address, prefixLength);
  if (canonical(network) !== canonical(address)) {
    return { ok: false, reason: `cidr must have zero host bits, e.g. ${canonical(network)}/${prefixLength}` };
  }
  return { ok: true, cidr: { family, network: canonical(network), prefixLength } };
}

/** Parses one address (no prefix, no zone id). */
export function parseIp(input: string): IpResult {
  const address = parseAddress(input);
  return address ? { ok: true, ip: { family: address.kind(), address: canonical(address) } } : { ok: false, reason: NOT_AN_IP };
}

/** `network/prefixLength`, the form events and documents hold. */
export const formatCidr = (cidr: Cidr): string => `${cidr.network}/${cidr.prefixLength}`;

/** The rules below take a parsed block or its text; text that is not a valid CIDR is a programming error. */
export type CidrLike = Cidr | string;

function block(c: CidrLike): [Addr, number] {
  if (typeof c !== 'string') return [ipaddr.parse(c.network), c.prefixLength];
  const parsed = parseCidr(c);
  if (!parsed.ok) throw new TypeError(`not a valid CIDR (${parsed.reason}): ${JSON.stringify(c)}`);
  return [ipaddr.parse(parsed.cidr.network), parsed.cidr.prefixLength];
}

/** Whether `inner` lies wholly inside `outer` (same family, at least as long a prefix). */
function within(inner: [Addr, number], outer: [Addr, number]): boolean {
  return inner[0].kind() === outer[0].kind() && inner[1] >= outer[1] && inner[0].match(outer[0], outer[1]);
}

const PRIVATE_BLOCKS = PRIVATE_RANGES.map(block);

/** The whole block lies in a private range: `10.0.0.0/8` is private, `10.0.0.0/7` and `172.32.0.0/16` are not. */
export function isPrivate(cidr: CidrLike): boolean {
  const b = block(cidr);
  return PRIVATE_BLOCKS.some((range) => within(b, range));
}

/** The two blocks share at least one address. Blocks of different families never overlap. */
export function overlaps(a: CidrLike, b: CidrLike): boolean {
  const x = block(a);
  const y = block(b);
  return within(x, y) || within(y, x);
}

/** `ip` lies inside the block (e.g. a database attachment's `privateIp` in its network's CIDR). */
export function contains(cidr: CidrLike, ip: string): boolean {
  const parsed = parseIp(ip);
  if (!parsed.ok) throw new TypeError(`not a valid IP address: ${JSON.stringify(ip)}`);
  const address = ipaddr.parse(parsed.ip.address);
  return within([address, MAX_PREFIX[parsed.ip.family]], block(cidr));
}

/** A CIDR body field: refused with a message for the field's pointer, answered in canonical form. */
export const cidrSchema = z
  .string()
  .max(MAX_CIDR_LENGTH, { error: NOT_A_CIDR })
  .transform((value, ctx) => {
    const parsed = parseCidr(value);
    if (parsed.ok) return formatCidr(parsed.cidr);
    ctx.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  })
  .pipe(z.string())
  .describe('An IPv4 or IPv6 CIDR with zero host bits, e.g. 10.0.0.0/16 or fd00::/8; answered in canonical form');

/** A private network's or VLAN's range: a CIDR inside RFC 1918 or RFC 4193 space. */
export const privateCidrSchema = cidrSchema
  .refine((value) => isPrivate(value), { error: `cidr must be a private range: inside ${PRIVATE_RANGES.join(', ')}` })
  .describe(`A private IPv4 or IPv6 CIDR (inside ${PRIVATE_RANGES.join(', ')}) with zero host bits`);

/** One IP address, answered in canonical form. */
export const ipAddressSchema = z
  .string()
  .max(MAX_CIDR_LENGTH, { error: NOT_AN_IP })
  .transform((value, ctx) => {
    const parsed = parseIp(value);
    if (parsed.ok) return parsed.ip.address;
    ctx.addIssue({ code: 'custom', message: parsed.reason });
    return z.NEVER;
  })
  .pipe(z.string())
  .describe('An IPv4 or IPv6 address, e.g. 10.0.0.5');
