// Queue wait per card model (docs/reports.md, "Queues"): the 90th-percentile wait, in minutes, of the
// requests admitted each day, one series per model. Requests still waiting are not in it (the API
// reports them apart), so a day with no admission has no bar height.
import { lastDays, seriesBy } from './report-window.js';

export const queueWaitReport = {
  id: 'queue-wait-model', title: 'Queue wait (p90, minutes) per card model, last 7 days',
  path: () => `/reports/queues?groupBy=model&${lastDays(7, 'day')}`,
  chart: (d) => ({
    ...seriesBy(d.rows.filter((r) => r.admitted > 0), (r) => r.group.model || 'any model',
      (r) => Math.round(Number(r.waitP90Seconds) / 6) / 10),
    options: { yTitle: 'minutes' },
  }),
};
