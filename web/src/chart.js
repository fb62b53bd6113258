// chart.js: bar charts in SVG, for `prob` and `sim`: a group of bars per
// category, a bar per series in it (two systems side by side). Each bar
// says what it shows (data-series, data-label, data-value), for a reader
// and for tests/web.test.
const NS = 'http://www.w3.org/2000/svg';
const COLORS = ['#3f6fb5', '#d0782a', '#4f9a59', '#a04c9c'];

function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text != null) e.textContent = text;
  return e;
}

function formatValue(v, percent) {
  const x = percent ? 100 * v : v;
  const text = Math.abs(x) >= 100 ? x.toFixed(0) : String(Number(x.toPrecision(3)));
  return percent ? `${text}%` : text;
}

// {title, labels: [..], series: [{name, values: [..]}], percent} -> <figure>
export function barChart({ title, labels, series, percent = false, xLabel = '' }) {
  const width = 560;
  const height = 220;
  const left = 52;
  const right = 10;
  const top = 12;
  const bottom = 38;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  let highest = 0;
  for (const s of series) for (const v of s.values) highest = Math.max(highest, v || 0);
  // the axis to a round value: 4 steps of 1, 2, 2.5 or 5 times a power of ten
  const rough = (highest > 0 ? highest : 1) / 4;
  const ten = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * ten).find((x) => x >= rough * (1 - 1e-9));
  const max = step * 4;
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title });
  // axis and a few lines across, at round values
  const ticks = 4;
  for (let i = 0; i <= ticks; i++) {
    const v = (max * i) / ticks;
    const y = top + plotH - (plotH * i) / ticks;
    svg.append(el('line', { class: 'grid', x1: left, x2: width - right, y1: y, y2: y }));
    svg.append(el('text', { class: 'tick', x: left - 6, y: y + 4, 'text-anchor': 'end' }, formatValue(v, percent)));
  }
  const slot = plotW / Math.max(1, labels.length);
  const barW = Math.max(1, (slot * 0.8) / series.length);
  // labels under the bars: as many as fit
  const every = Math.ceil(labels.length / Math.max(1, Math.floor(plotW / 34)));
  labels.forEach((label, i) => {
    const x0 = left + i * slot + slot * 0.1;
    series.forEach((s, k) => {
      const v = s.values[i] || 0;
      const h = (plotH * v) / max;
      const bar = el('rect', {
        class: 'bar',
        x: (x0 + k * barW).toFixed(2),
        y: (top + plotH - h).toFixed(2),
        width: Math.max(0.5, barW - (series.length > 1 ? 1 : 0.5)).toFixed(2),
        height: h.toFixed(2),
        fill: COLORS[k % COLORS.length],
        'data-series': s.name,
        'data-label': String(label),
        'data-value': String(v),
      });
      bar.append(el('title', {}, `${s.name ? `${s.name}: ` : ''}${label}: ${formatValue(v, percent)}`));
      svg.append(bar);
    });
    if (i % every === 0)
      svg.append(el('text', { class: 'label', x: left + i * slot + slot / 2, y: top + plotH + 14, 'text-anchor': 'middle' }, String(label)));
  });
  svg.append(el('line', { class: 'axis', x1: left, x2: width - right, y1: top + plotH, y2: top + plotH }));
  if (xLabel) svg.append(el('text', { class: 'xlabel', x: left + plotW / 2, y: height - 4, 'text-anchor': 'middle' }, xLabel));
  const figure = document.createElement('figure');
  figure.className = 'chart-box';
  const caption = document.createElement('figcaption');
  caption.textContent = title;
  figure.append(caption);
  if (series.length > 1 || series[0].name) {
    const legend = document.createElement('div');
    legend.className = 'legend';
    series.forEach((s, k) => {
      const item = document.createElement('span');
      item.innerHTML = `<i style="background:${COLORS[k % COLORS.length]}"></i>`;
      item.append(s.name);
      legend.append(item);
    });
    figure.append(legend);
  }
  figure.append(svg);
  return figure;
}
