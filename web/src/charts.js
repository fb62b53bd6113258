// charts.js: the charts of `prob` and `sim`, from the figures web/fray_web.c
// sends as the commands compute them.
import { barChart } from './chart.js';

// a chart of each distribution's outcomes; one of how likely each
// comparison holds
export function probCharts(events) {
  const dists = events.filter((e) => e.kind === 'distribution').map((e) => e.data);
  const charts = [];
  for (const d of dists.filter((x) => !x.yes_no)) {
    charts.push(
      barChart({
        title: `${d.expression}${d.width > 1 ? ` (in bins of ${d.width})` : ''}: chance of each outcome`,
        labels: d.points.map((p) => p[0]),
        series: [{ name: '', values: d.points.map((p) => p[1]) }],
        percent: true,
        xLabel: 'outcome',
      }),
    );
  }
  const comparisons = dists.filter((x) => x.yes_no);
  if (comparisons.length)
    charts.push(
      barChart({
        title: 'How likely each comparison holds',
        labels: comparisons.map((d) => d.expression),
        series: [{ name: '', values: comparisons.map((d) => (d.points.find((p) => p[0] === 1) || [1, 0])[1]) }],
        percent: true,
      }),
    );
  return charts;
}

function union(lists) {
  const seen = [];
  for (const list of lists) for (const x of list) if (!seen.includes(x)) seen.push(x);
  return seen;
}

// who wins, how long fights last, the damage each creature deals and
// takes: a series per system (two with --vs, or two scenarios)
export function simCharts(events) {
  const rs = events.filter((e) => e.kind === 'sim').map((e) => e.data);
  if (!rs.length) return [];
  const name = (r, i) => r.system || r.vs || (rs.length > 1 ? `#${i + 1}` : r.scenario);
  const series = (f) => rs.map((r, i) => ({ name: rs.length > 1 ? name(r, i) : '', values: f(r) }));
  const sides = union(rs.map((r) => r.sides.map((s) => s.name)));
  const winners = [...sides];
  if (rs.some((r) => r.undecided)) winners.push('no winner yet');
  if (rs.some((r) => r.nobody)) winners.push('every side down');
  const wins = (r) =>
    winners.map((w) => {
      const s = r.sides.find((x) => x.name === w);
      const n = s ? s.wins : w === 'no winner yet' ? r.undecided : w === 'every side down' ? r.nobody : 0;
      return n / r.runs;
    });
  let first = Infinity;
  let last = 0;
  for (const r of rs)
    r.rounds.forEach((n, k) => {
      if (n) {
        first = Math.min(first, k);
        last = Math.max(last, k);
      }
    });
  const lengths = [];
  for (let k = first; k <= last; k++) lengths.push(k);
  const creatures = union(rs.map((r) => r.creatures.map((c) => c.name)));
  const per = (field) => (r) =>
    creatures.map((c) => {
      const x = r.creatures.find((y) => y.name === c);
      return x ? x[field] / r.runs : 0;
    });
  const charts = [barChart({ title: 'Who wins', labels: winners, series: series(wins), percent: true })];
  if (lengths.length)
    charts.push(
      barChart({
        title: 'Rounds a fight lasts',
        labels: lengths,
        series: series((r) => lengths.map((k) => (r.rounds[k] || 0) / r.runs)),
        percent: true,
        xLabel: 'rounds',
      }),
    );
  if (rs[0].health) {
    charts.push(barChart({ title: `Damage each creature deals per fight (mean ${rs[0].health})`, labels: creatures, series: series(per('dealt')) }));
    charts.push(barChart({ title: `Damage each creature takes per fight (mean ${rs[0].health})`, labels: creatures, series: series(per('taken')) }));
  }
  return charts;
}
