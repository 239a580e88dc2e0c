import { z } from 'zod';
import { cidrSchema } from './cidr';

/** Firewall rules of DECISIONS 14; `source` is the remote side's CIDR whichever the direction. */
export const FIREWALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type FirewallDirection = (typeof FIREWALL_DIRECTIONS)[number];

export const FIREWALL_PROTOCOLS = ['tcp', 'udp', 'icmp', 'all'] as const;
export type FirewallProtocol = (typeof FIREWALL_PROTOCOLS)[number];

/** The protocols whose rules name a port; the others must not. */
export const PORTED_PROTOCOLS: readonly FirewallProtocol[] = ['tcp', 'udp'];

export const MAX_FIREWALL_RULES = 100;
export const MIN_PORT = 1;
export const MAX_PORT = 65535;

const required = (field: string, otherwise: string) => (issue: { input?: unknown }) => (issue.input === undefined ? `${field} is required` : otherwise);

export const portSchema = z
  .number({ error: required('port', `port must be an integer from ${MIN_PORT} to ${MAX_PORT}`) })
  .int({ error: `port must be an integer from ${MIN_PORT} to ${MAX_PORT}` })
  .min(MIN_PORT, { error: `port must be an integer from ${MIN_PORT} to ${MAX_PORT}` })
  .max(MAX_PORT, { error: `port must be an integer from ${MIN_PORT} to ${MAX_PORT}` });

const isProtocol = (v: unknown): v is FirewallProtocol => (FIREWALL_PROTOCOLS as readonly unknown[]).includes(v);

const ruleFields = {
  direction: z.enum(FIREWALL_DIRECTIONS, { error: required('direction', 'direction must be inbound or outbound') }),
  protocol: z.enum(FIREWALL_PROTOCOLS, { error: required('protocol', 'protocol must be tcp, udp, icmp or all') }),
  port: portSchema.optional().describe('1-65535; required for tcp and udp, absent for icmp and all'),
  source: cidrSchema,
};

export const firewallRuleSchema = z
  .object(ruleFields, { error: 'a firewall rule is an object {direction, protocol, port?, source}' })
  .superRefine(
    (rule, ctx) => {
      const ported = PORTED_PROTOCOLS.includes(rule.protocol);
      if (ported && rule.port === undefined) ctx.addIssue({ code: 'custom', path: ['port'], message: `port is required when protocol is ${rule.protocol}` });
      if (!ported && rule.port !== undefined) ctx.addIssue({ code: 'custom', path: ['port'], message: `port must be absent when protocol is ${rule.protocol}` });
    },
    // Also when another field is wrong, so one response names every offending field.
    { when: ({ value }) => typeof value === 'object' && value !== null && isProtocol((value as { protocol?: unknown }).protocol) },
  );
export type FirewallRule = z.output<typeof firewallRuleSchema>;

export const firewallRulesSchema = z
  .array(firewallRuleSchema, { error: required('rules', 'rules must be an array of firewall rules') })
  .max(MAX_FIREWALL_RULES, { error: `at most ${MAX_FIREWALL_RULES} firewall rules` })
  .describe(`At most ${MAX_FIREWALL_RULES} rules`);
