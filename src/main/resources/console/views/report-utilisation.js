// Allocated against effective GPU time over time (docs/reports.md, "Utilisation"): per day, the
// GPU-hours leases held and the GPU-hours their own GPUs were measured busy (activity-weighted). Time
// without telemetry counts in allocated only; the CSV has the coverage and idle-held hours per day.
import { lastDays } from './report-window.js';

export const utilisationReport = {
  id: 'utilisation', title: 'Allocated vs effective GPU-hours, last 7 days',
  path: () => `/reports/utilisation?top=1&${lastDays(7, 'day')}`,
  chart: (d) => {
    const buckets = [...new Set(d.rows.map((r) => r.bucket))].sort();
    const sum = (b, field) => d.rows.filter((r) => r.bucket === b).reduce((s, r) => s + Number(r[field] || 0), 0);
    return {
      labels: buckets.map((b) => b.slice(0, 10)),
      series: [['allocated', 'allocatedGpuHours'], ['effective', 'effectiveGpuHours']]
        .map(([label, field]) => ({ label, data: buckets.map((b) => sum(b, field)) })),
      options: { yTitle: 'GPU-hours' },
    };
  },
};
