// Fragmentation over time (docs/reports.md, "Fragmentation"): the stranded GPUs (free, but unusable by
// the recent request mix) per pool, hourly over the last day, from the sampler's table. Fleet state:
// a tenant's token gets the API's 403, shown as its problem message.
import { lastDays, seriesBy } from './report-window.js';

export const fragmentationReport = {
  id: 'fragmentation-pool', title: 'Stranded GPUs per pool, last 24 hours',
  path: () => `/reports/fragmentation?groupBy=pool&${lastDays(1, 'hour')}`,
  chart: (d) => ({
    ...seriesBy(d.rows, (r) => r.group.pool, (r) => Number(r.strandedGpus), (b) => b.slice(11, 16)),
    options: { stacked: true, yTitle: 'GPUs' },
  }),
};
