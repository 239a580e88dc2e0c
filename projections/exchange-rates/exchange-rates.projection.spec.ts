import { exchangeRateDecider } from '../../libs/domain/billing/exchange-rate.decider';
import { exchangeRateStream } from '../../libs/domain/billing/events';
import { logRecorder, projected } from '../../test/support/projector';
import { exchangeRatesProjection, rateId } from './exchange-rates.projection';

const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();

describe('exchange rates read model: the admin-set rate of each pair', () => {
  it('keeps one document per pair with the latest rate, who set it and when', async () => {
    const log = logRecorder();
    const usdNgn = log.decided(exchangeRateStream('USD', 'NGN'), exchangeRateDecider('USD', 'NGN'));
    const ngnUsd = log.decided(exchangeRateStream('NGN', 'USD'), exchangeRateDecider('NGN', 'USD'));
    const model = await projected(exchangeRatesProjection);
    await model.handle(...usdNgn({ type: 'SetExchangeRate', from: 'USD', to: 'NGN', rate: '1500.00', setBy: 'admin:a', now: at(0) }));
    expect(await model.get(rateId('USD', 'NGN'))).toEqual({ id: 'USD-NGN', _position: 1, projectId: null, from: 'USD', to: 'NGN', rate: '1500', setBy: 'admin:a', updatedAt: at(0) });

    await model.handle(
      ...usdNgn({ type: 'SetExchangeRate', from: 'USD', to: 'NGN', rate: '1612.25', setBy: 'admin:b', now: at(1) }),
      ...ngnUsd({ type: 'SetExchangeRate', from: 'NGN', to: 'USD', rate: '0.00062', setBy: 'admin:a', now: at(2) }),
    );
    expect(await model.all()).toEqual([
      { id: 'NGN-USD', _position: 3, projectId: null, from: 'NGN', to: 'USD', rate: '0.00062', setBy: 'admin:a', updatedAt: at(2) },
      { id: 'USD-NGN', _position: 2, projectId: null, from: 'USD', to: 'NGN', rate: '1612.25', setBy: 'admin:b', updatedAt: at(1) },
    ]);
  });

  it('keeps the later rate when the log hands an earlier one again after a restart', async () => {
    const log = logRecorder();
    const usdNgn = log.decided(exchangeRateStream('USD', 'NGN'), exchangeRateDecider('USD', 'NGN'));
    const first = usdNgn({ type: 'SetExchangeRate', from: 'USD', to: 'NGN', rate: '1500', setBy: 'admin:a', now: at(0) });
    const second = usdNgn({ type: 'SetExchangeRate', from: 'USD', to: 'NGN', rate: '1600', setBy: 'admin:b', now: at(1) });
    const model = await projected(exchangeRatesProjection);
    await model.handle(...first, ...second);
    model.restart();
    await model.handle(...first);
    await model.handle(...first, ...second);
    expect(await model.get('USD-NGN')).toMatchObject({ rate: '1600', setBy: 'admin:b', _position: 2 });
  });
});
