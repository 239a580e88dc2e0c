import { z } from 'zod';
import { bodyErrors } from '../../http/src/validation';
import { cidrSchema, contains, formatCidr, ipAddressSchema, isPrivate, overlaps, parseCidr, parseIp, privateCidrSchema } from './cidr';

const NOT_A_CIDR = 'must be an IPv4 or IPv6 CIDR, e.g. 10.0.0.0/16 or fd00::/8';

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/16', 'ipv4', '10.0.0.0', 16],
    ['0.0.0.0/0', 'ipv4', '0.0.0.0', 0],
    ['203.0.113.7/32', 'ipv4', '203.0.113.7', 32],
    ['fd00::/8', 'ipv6', 'fd00::', 8],
    ['FD00:0:0::/8', 'ipv6', 'fd00::', 8],
    ['2001:0db8:0000::/48', 'ipv6', '2001:db8::', 48],
    ['::/0', 'ipv6', '::', 0],
    ['2001:db8::1/128', 'ipv6', '2001:db8::1', 128],
    ['::ffff:10.0.0.0/104', 'ipv6', '::ffff:10.0.0.0', 104],
  ])('accepts %s as %s %s/%s', (input, family, network, prefixLength) => {
    expect(parseCidr(input)).toEqual({ ok: true, cidr: { family, network, prefixLength } });
  });

  it.each([
    ['10.0.0.1/8', 'cidr must have zero host bits, e.g. 10.0.0.0/8'],
    ['192.168.1.1/24', 'cidr must have zero host bits, e.g. 192.168.1.0/24'],
    ['10.0.0.128/24', 'cidr must have zero host bits, e.g. 10.0.0.0/24'],
    ['10.0.0.1/31', 'cidr must have zero host bits, e.g. 10.0.0.0/31'],
    ['1.0.0.0/0', 'cidr must have zero host bits, e.g. 0.0.0.0/0'],
    ['fd00::1/8', 'cidr must have zero host bits, e.g. fd00::/8'],
    ['fd12:3456::/16', 'cidr must have zero host bits, e.g. fd12::/16'],
    ['10.0.0.0/33', 'the prefix length of an IPv4 CIDR is 0 to 32'],
    ['fd00::/129', 'the prefix length of an IPv6 CIDR is 0 to 128'],
  ])('refuses %s: %s', (input, reason) => {
    expect(parseCidr(input)).toEqual({ ok: false, reason });
  });

  it.each([
    '',
    '10.0.0.0',
    '10.0.0.0/',
    '/8',
    '10.0.0.0/8/8',
    '10/8',
    '1.2.3/24',
    '0xa.0.0.0/8',
    '010.0.0.0/8',
    '256.0.0.0/8',
    '10.0.0.0/08',
    '10.0.0.0/+8',
    '10.0.0.0/ 8',
    ' 10.0.0.0/8',
    '10.0.0.0/8 ',
    'fe80::%eth0/64',
    'fd00:::/8',
    'fd00::g/8',
    'example.com/24',
  ])('refuses %j as not a CIDR', (input) => {
    expect(parseCidr(input)).toEqual({ ok: false, reason: NOT_A_CIDR });
  });

  it('formats a parsed block back to its canonical text', () => {
    const parsed = parseCidr('FD00:0000::/8');
    expect(parsed.ok && formatCidr(parsed.cidr)).toBe('fd00::/8');
  });
});

describe('parseIp', () => {
  it.each([
    ['10.0.3.4', 'ipv4', '10.0.3.4'],
    ['FD00:0::5', 'ipv6', 'fd00::5'],
    ['::ffff:1.2.3.4', 'ipv6', '::ffff:1.2.3.4'],
  ])('accepts %s', (input, family, address) => {
    expect(parseIp(input)).toEqual({ ok: true, ip: { family, address } });
  });

  it.each(['10.0.0.0/8', '10.0.3', '10.0.3.256', '010.0.0.1', 'fe80::1%eth0', '', 'localhost'])('refuses %j', (input) => {
    expect(parseIp(input)).toEqual({ ok: false, reason: 'must be an IPv4 or IPv6 address, e.g. 10.0.0.5 or fd00::5' });
  });
});

describe('isPrivate', () => {
  it.each(['10.0.0.0/8', '10.20.0.0/16', '172.16.0.0/12', '172.31.255.0/24', '192.168.0.0/16', '192.168.10.0/24', 'fd00::/8', 'fc00::/7', 'fdab:cdef:1234::/48'])(
    '%s is private',
    (cidr) => expect(isPrivate(cidr)).toBe(true),
  );

  it.each([
    '172.32.0.0/16', // just past 172.16.0.0/12
    '172.15.0.0/16',
    '10.0.0.0/7', // wider than 10.0.0.0/8: holds 11.0.0.0/8 too
    '172.0.0.0/11', // holds 172.16.0.0/12 but more
    '192.169.0.0/16',
    '8.8.8.0/24',
    '0.0.0.0/0',
    'fe00::/7',
    'fc00::/6',
    'fe80::/10', // link-local is not RFC 4193
    '2001:db8::/32',
    '::ffff:10.0.0.0/104', // IPv4-mapped 10/8 is not IPv6 private space
  ])('%s is not private', (cidr) => expect(isPrivate(cidr)).toBe(false));

  it('takes a parsed block too', () => {
    expect(isPrivate({ family: 'ipv4', network: '10.1.0.0', prefixLength: 16 })).toBe(true);
  });

  it('throws on text that is not a valid CIDR (callers validate first)', () => {
    expect(() => isPrivate('10.0.0.1/8')).toThrow(TypeError);
  });
});

describe('overlaps', () => {
  it.each([
    ['10.0.0.0/16', '10.0.128.0/17'],
    ['10.0.128.0/17', '10.0.0.0/16'],
    ['10.0.0.0/16', '10.0.0.0/16'],
    ['0.0.0.0/0', '192.168.1.0/24'],
    ['10.0.5.7/32', '10.0.0.0/16'],
    ['fd00::/8', 'fd12:3456::/32'],
  ])('%s and %s overlap', (a, b) => expect(overlaps(a, b)).toBe(true));

  it.each([
    ['10.0.0.0/17', '10.0.128.0/17'],
    ['10.0.0.0/16', '10.1.0.0/16'],
    ['192.168.0.0/24', '192.168.1.0/24'],
    ['fd00::/16', 'fd01::/16'],
    ['10.0.0.0/8', 'fd00::/8'],
    ['0.0.0.0/0', '::/0'],
  ])('%s and %s do not overlap', (a, b) => expect(overlaps(a, b)).toBe(false));
});

describe('contains', () => {
  it.each([
    ['10.0.0.0/16', '10.0.3.4'],
    ['10.0.0.0/16', '10.0.0.0'],
    ['10.0.0.0/16', '10.0.255.255'],
    ['192.168.1.0/24', '192.168.1.42'],
    ['fd00::/8', 'fd12::5'],
    ['0.0.0.0/0', '203.0.113.9'],
  ])('%s contains %s', (cidr, ip) => expect(contains(cidr, ip)).toBe(true));

  it.each([
    ['10.0.0.0/16', '10.1.0.0'],
    ['10.0.0.0/16', '9.255.255.255'],
    ['192.168.1.0/24', '192.168.2.1'],
    ['fd00::/8', 'fe00::1'],
    ['10.0.0.0/8', 'fd00::1'],
    ['fd00::/8', '10.0.0.1'],
  ])('%s does not contain %s', (cidr, ip) => expect(contains(cidr, ip)).toBe(false));

  it('throws on an address that does not parse (callers validate first)', () => {
    expect(() => contains('10.0.0.0/16', '10.0.3')).toThrow(TypeError);
  });
});

describe('schemas', () => {
  const body = z.object({ name: z.string(), cidr: privateCidrSchema, privateIp: ipAddressSchema.optional() });

  it('answer the canonical form', () => {
    expect(cidrSchema.parse('8.8.8.0/24')).toBe('8.8.8.0/24');
    expect(cidrSchema.parse('FD00:0::/8')).toBe('fd00::/8');
    expect(ipAddressSchema.parse('FD00::0005')).toBe('fd00::5');
    expect(body.parse({ name: 'n', cidr: '10.0.0.0/16', privateIp: '10.0.0.9' })).toEqual({ name: 'n', cidr: '10.0.0.0/16', privateIp: '10.0.0.9' });
  });

  it('parse their own output again unchanged (the decider re-validates recorded fields)', () => {
    for (const input of ['FD00:0::/8', '10.0.0.0/16', '::ffff:10.0.0.0/104']) {
      const once = cidrSchema.parse(input);
      expect(cidrSchema.parse(once)).toBe(once);
    }
  });

  it.each([
    ['10.0.0.1/8', 'cidr must have zero host bits, e.g. 10.0.0.0/8'],
    ['10.0.0.0/7', 'cidr must be a private range: inside 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7'],
    ['172.32.0.0/16', 'cidr must be a private range: inside 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fc00::/7'],
    // The edge names the field before a schema's own fragment (libs/http/src/validation.ts).
    ['banana', `cidr ${NOT_A_CIDR}`],
    ['x'.repeat(200), `cidr ${NOT_A_CIDR}`],
  ])('a body with cidr %j gets one error at /cidr: %s', (cidr, detail) => {
    const r = body.safeParse({ name: 'n', cidr });
    expect(r.success).toBe(false);
    if (!r.success) expect(bodyErrors(r.error, '/data/attributes')).toEqual([{ detail, source: { pointer: '/data/attributes/cidr' } }]);
  });

  it('accepts private IPv6 and refuses a non-string cidr', () => {
    expect(privateCidrSchema.safeParse('fd00::/8').success).toBe(true);
    const r = body.safeParse({ name: 'n', cidr: 10 });
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.issues.map((i) => i.path)).toEqual([['cidr']]);
  });

  it('refuses a bad address at its own pointer', () => {
    const r = body.safeParse({ name: 'n', cidr: '10.0.0.0/16', privateIp: '10.0.0.0/16' });
    expect(r.success).toBe(false);
    if (!r.success) expect(bodyErrors(r.error, '')).toEqual([{ detail: 'privateIp must be an IPv4 or IPv6 address, e.g. 10.0.0.5 or fd00::5', source: { pointer: '/privateIp' } }]);
  });
});
