// Reclamation (docs/reports.md, "Reclamation"): GPU-hours returned by reclamation each day, stacked by
// the rule that reclaimed them.
import { lastDays, seriesBy } from './report-window.js';

export const reclamationReport = {
  id: 'reclaimed-rule', title: 'GPU-hours returned by reclamation, by rule, last 7 days',
  path: () => `/reports/reclamation?${lastDays(7, 'day')}`,
  chart: (d) => ({
    ...seriesBy(d.reclaims, (r) => r.rule, (r) => Number(r.gpuHoursReturned)),
    options: { stacked: true, yTitle: 'GPU-hours' },
  }),
};
