import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

const INCREMENTS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 10_000_000];

/**
 * A bar chart of a value per UTC day, drawn by uPlot on a canvas (no inline <style>, no eval, so
 * it runs under the console's CSP). A visually hidden table carries the same numbers for screen readers.
 */
export function DailyBars({ days, values, label, format }: { days: string[]; values: number[]; label: string; format: (n: number) => string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const width = Math.max(320, Math.min(el.clientWidth || 640, 960));
    const plot = new uPlot(
      {
        width,
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max, 100)] } },
        // Whole cents only on the value axis.
        axes: [{ stroke: '#333' }, { stroke: '#333', incrs: INCREMENTS, values: (_u, ticks) => ticks.map((t) => format(t)), size: 80 }],
        series: [{}, { label, fill: '#2563ebcc', stroke: '#1d4ed8', paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false } }],
      },
      [xs, values],
      el,
    );
    return () => plot.destroy();
  }, [days.join(), values.join()]);
  return (
    <figure class="chart">
      <div ref={host} class="chart-canvas" role="img" aria-label={`${label}: bar chart per day`} />
      <figcaption>{label}</figcaption>
      <table class="visually-hidden">
        <caption>{label}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col">Amount</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d, i) => (
            <tr key={d}>
              <td>{d}</td>
              <td>{format(values[i] ?? 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

export interface BarSeries {
  label: string;
  values: number[];
  fill: string;
  stroke: string;
}

/**
 * Bars per category (a model), one bar per series side by side, drawn by uPlot like DailyBars, with
 * a legend naming the series and the same numbers in a visually hidden table.
 */
export function CategoryBars({ categories, series, label, format }: { categories: string[]; series: BarSeries[]; label: string; format: (n: number) => string }) {
  const host = useRef<HTMLDivElement>(null);
  const key = JSON.stringify([categories, series.map((s) => s.values)]);
  useEffect(() => {
    const el = host.current;
    if (!el || categories.length === 0) return;
    const xs = categories.map((_c, i) => i);
    const width = Math.max(320, Math.min(el.clientWidth || 640, 960));
    const size = series.length > 1 ? 0.8 / series.length : 0.6;
    const plot = new uPlot(
      {
        width,
        height: 240,
        legend: { show: series.length > 1, live: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: false, range: [-0.5, categories.length - 0.5] }, y: { range: (_u, _min, max) => [0, Math.max(max * 1.1, 1)] } },
        axes: [
          { stroke: '#333', splits: () => xs, values: (_u, ticks) => ticks.map((t) => categories[t] ?? ''), grid: { show: false } },
          { stroke: '#333', incrs: INCREMENTS, values: (_u, ticks) => ticks.map((t) => format(t)), size: 90 },
        ],
        series: [
          { value: (_u, v) => categories[v] ?? '' },
          ...series.map((s, i) => ({
            label: s.label,
            fill: s.fill,
            stroke: s.stroke,
            points: { show: false },
            paths: uPlot.paths.bars!({ size: [size, 60], align: series.length === 1 ? 0 : i === 0 ? -1 : 1 }),
          })),
        ],
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    return () => plot.destroy();
  }, [key]);
  return (
    <figure class="chart">
      <div ref={host} class="chart-canvas" role="img" aria-label={`${label}: bar chart per model`} />
      <figcaption>{label}</figcaption>
      <table class="visually-hidden">
        <caption>{label}</caption>
        <thead>
          <tr>
            <th scope="col">Model</th>
            {series.map((s) => (
              <th scope="col" key={s.label}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {categories.map((c, i) => (
            <tr key={c}>
              <td>{c}</td>
              {series.map((s) => (
                <td key={s.label}>{format(s.values[i] ?? 0)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
