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
