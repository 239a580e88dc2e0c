import { requireEngine } from '../engines';
import { readTopicUntil, type TopicLog } from '../support/kafka';
import { startTestServer, type TestServer } from '../support/test-server';
import { until } from './networking.support';

describe('networking events reach cloud.networking.events.v1 (server profile)', () => {
  let srv: TestServer;
  let api: ReturnType<TestServer['as']>;

  beforeAll(async () => {
    srv = await startTestServer('server', { SIMULATOR_LATENCY: 'zero' });
    api = srv.as(srv.bootstrap.apiKey);
    expect((await api.post('/v1/providers', { name: 'provider_baremetal', apiKey: 'sk-topic' })).status).toBe(201);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('publishes each resource\'s lifecycle keyed by its stream; the topic holds networking streams only', async () => {
    const vlan = await api.post('/v1/networking/vlans', { name: 'lan', region: 'NYC', cidr: '10.9.0.0/24' });
    const firewall = await api.post('/v1/networking/firewalls', { name: 'fw', rules: [] });
    expect([vlan.status, firewall.status]).toEqual([202, 202]);
    await until(api, `/v1/networking/vlans/${vlan.body.data.id}`, 'active');
    await until(api, `/v1/networking/firewalls/${firewall.body.data.id}`, 'active');
    const update = await api.patch(`/v1/networking/firewalls/${firewall.body.data.id}`, { rules: [{ direction: 'inbound', protocol: 'icmp', source: '10.0.0.0/8' }] });
    expect(update.status).toBe(202);

    const firewallUpdated = (log: TopicLog) => (log.types.get(`firewall-${firewall.body.data.id}`) ?? []).filter((t) => t === 'networking.FirewallOperationCompleted.v1').length === 2;
    const vlanActive = (log: TopicLog) => (log.types.get(`vlan-${vlan.body.data.id}`) ?? []).includes('networking.VlanOperationCompleted.v1');
    const { types, keys } = await readTopicUntil(requireEngine('KAFKA_BROKERS').split(','), srv.env.KAFKA_TOPIC_PREFIX, 'networking', (log) => firewallUpdated(log) && vlanActive(log));
    expect(types.get(`vlan-${vlan.body.data.id}`)).toEqual(expect.arrayContaining(['networking.VlanRequested.v1', 'networking.VlanOperationCompleted.v1']));
    expect(types.get(`firewall-${firewall.body.data.id}`)).toEqual(expect.arrayContaining(['networking.FirewallRequested.v1', 'networking.FirewallOperationRequested.v1', 'networking.FirewallOperationCompleted.v1']));
    expect([...types.keys()].every((s) => /^(vlan|firewall)-/.test(s))).toBe(true);
    expect(keys).toEqual(new Set([`vlan-${vlan.body.data.id}`, `firewall-${firewall.body.data.id}`]));
  }, 90000);
});
