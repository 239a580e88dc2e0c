import { z } from 'zod';
import { bodyErrors } from '../../http/src/validation';
import { MAX_FIREWALL_RULES, firewallRuleSchema, firewallRulesSchema } from './firewall-rules';

const body = z.object({ name: z.string(), rules: firewallRulesSchema });

/** The JSON:API error items a create body with these rules would get (empty when accepted). */
function errors(rules: unknown): { detail: string; pointer: string }[] {
  const r = body.safeParse({ name: 'web', rules });
  return r.success ? [] : bodyErrors(r.error, '').map((e) => ({ detail: e.detail, pointer: e.source?.pointer ?? '' }));
}

const ssh = { direction: 'inbound', protocol: 'tcp', port: 22, source: '203.0.113.0/24' };

describe('firewall rules', () => {
  it.each([
    ssh,
    { direction: 'outbound', protocol: 'udp', port: 53, source: '0.0.0.0/0' },
    { direction: 'inbound', protocol: 'tcp', port: 1, source: '10.0.0.0/8' },
    { direction: 'inbound', protocol: 'tcp', port: 65535, source: '::/0' },
    { direction: 'inbound', protocol: 'icmp', source: '0.0.0.0/0' },
    { direction: 'outbound', protocol: 'all', source: 'fd00::/8' },
  ])('accepts %j', (rule) => {
    expect(firewallRuleSchema.parse(rule)).toEqual(rule);
  });

  it('answers the source in canonical form', () => {
    expect(firewallRuleSchema.parse({ ...ssh, source: 'FD00:0::/8' }).source).toBe('fd00::/8');
  });

  it('accepts an empty list and exactly 100 rules', () => {
    expect(errors([])).toEqual([]);
    expect(errors(Array.from({ length: MAX_FIREWALL_RULES }, (_, i) => ({ ...ssh, port: 1000 + i })))).toEqual([]);
  });

  it('refuses 101 rules at /rules', () => {
    expect(errors(Array.from({ length: MAX_FIREWALL_RULES + 1 }, () => ssh))).toEqual([{ detail: 'at most 100 firewall rules', pointer: '/rules' }]);
  });

  it.each([
    [{ direction: 'inbound', protocol: 'icmp', port: 8, source: '0.0.0.0/0' }, 'port must be absent when protocol is icmp'],
    [{ direction: 'inbound', protocol: 'all', port: 443, source: '0.0.0.0/0' }, 'port must be absent when protocol is all'],
    [{ direction: 'inbound', protocol: 'tcp', source: '0.0.0.0/0' }, 'port is required when protocol is tcp'],
    [{ direction: 'outbound', protocol: 'udp', source: '0.0.0.0/0' }, 'port is required when protocol is udp'],
    [{ ...ssh, port: 0 }, 'port must be an integer from 1 to 65535'],
    [{ ...ssh, port: 65536 }, 'port must be an integer from 1 to 65535'],
    [{ ...ssh, port: 22.5 }, 'port must be an integer from 1 to 65535'],
    [{ ...ssh, port: '22' }, 'port must be an integer from 1 to 65535'],
  ])('refuses the port of %j: %s', (rule, detail) => {
    expect(errors([ssh, rule])).toEqual([{ detail, pointer: '/rules/1/port' }]);
  });

  it.each([
    [{ ...ssh, direction: 'ingress' }, 'direction', 'direction must be inbound or outbound'],
    [{ protocol: 'tcp', port: 22, source: '0.0.0.0/0' }, 'direction', 'direction is required'],
    [{ ...ssh, protocol: 'TCP' }, 'protocol', 'protocol must be tcp, udp, icmp or all'],
    [{ ...ssh, protocol: 'sctp' }, 'protocol', 'protocol must be tcp, udp, icmp or all'],
    [{ direction: 'inbound', port: 22, source: '0.0.0.0/0' }, 'protocol', 'protocol is required'],
    [{ ...ssh, source: '10.0.0.1/8' }, 'source', 'cidr must have zero host bits, e.g. 10.0.0.0/8'],
    [{ ...ssh, source: '10.0.0.1' }, 'source', 'rules[0].source must be an IPv4 or IPv6 CIDR, e.g. 10.0.0.0/16 or fd00::/8'],
  ])('refuses %j at its %s', (rule, field, detail) => {
    expect(errors([rule])).toEqual([{ detail, pointer: `/rules/0/${field}` }]);
  });

  it('names every offending field of a rule at once, the port rule included', () => {
    expect(errors([{ direction: 'sideways', protocol: 'icmp', port: 7, source: '10.0.0.1/8' }])).toEqual([
      { detail: 'direction must be inbound or outbound', pointer: '/rules/0/direction' },
      { detail: 'cidr must have zero host bits, e.g. 10.0.0.0/8', pointer: '/rules/0/source' },
      { detail: 'port must be absent when protocol is icmp', pointer: '/rules/0/port' },
    ]);
  });

  it('refuses rules that are not a list, and a rule that is not an object', () => {
    expect(errors({ ...ssh })).toEqual([{ detail: 'rules must be an array of firewall rules', pointer: '/rules' }]);
    expect(errors(undefined)).toEqual([{ detail: 'rules is required', pointer: '/rules' }]);
    expect(errors([ssh, 'tcp/22'])).toEqual([{ detail: 'a firewall rule is an object {direction, protocol, port?, source}', pointer: '/rules/1' }]);
  });
});
