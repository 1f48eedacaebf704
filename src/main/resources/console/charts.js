// Charts are drawn by Chart.js (loaded from its WebJar by index.html as window.Chart); this module
// only maps our figures onto it. Each chart also gets a table of the same numbers next to it, for
// screen readers and for reading exact values.
import { h } from './dom.js';

const PALETTE = ['#0b57a4', '#d9730d', '#2e7d32', '#8e24aa', '#c62828', '#00838f', '#6d4c41', '#5c6bc0'];

/**
 * A bar chart: labels along x, one dataset per series ({label, data}); stacked when asked. Returns
 * the element holding the canvas; the Chart instance is drawn once the element is in the page.
 */
export function barChart(title, labels, series, { stacked = false, yTitle = '' } = {}) {
  const canvas = h('canvas', { role: 'img', 'aria-label': title, dataset: { chart: title } });
  const box = h('div', { class: 'chart-box' }, canvas);
  requestAnimationFrame(() => {
    if (!window.Chart) {
      box.replaceChildren(h('p', { class: 'problem', role: 'alert' }, 'Chart.js did not load; the numbers are in the table below.'));
      return;
    }
    new window.Chart(canvas, {
      type: 'bar',
      data: {
        labels,
        datasets: series.map((s, i) => ({ label: s.label, data: s.data, backgroundColor: PALETTE[i % PALETTE.length] })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { title: { display: true, text: title }, legend: { position: 'bottom' } },
        scales: {
          x: { stacked, ticks: { autoSkip: false, maxRotation: 60 } },
          y: { stacked, beginAtZero: true, title: { display: !!yTitle, text: yTitle } },
        },
      },
    });
  });
  return box;
}
