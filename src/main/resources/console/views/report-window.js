// The window of the operating-metrics charts: the last `days` days up to the end of the current UTC
// hour, on whole hours as the reports API asks (docs/reports.md, "Parameters").
export function lastDays(days, step) {
  const to = new Date();
  to.setUTCMinutes(0, 0, 0);
  to.setUTCHours(to.getUTCHours() + 1);
  const from = new Date(to.getTime() - days * 24 * 3600 * 1000);
  const iso = (d) => d.toISOString().replace('.000Z', 'Z');
  return `from=${iso(from)}&to=${iso(to)}&step=${step}`;
}

/** Rows ({bucket, <key>, <field>}) as one series per value of key(row), buckets along x; missing values are 0. */
export function seriesBy(rows, key, value, label = (b) => b.slice(0, 10)) {
  const buckets = [...new Set(rows.map((r) => r.bucket))].sort();
  const names = [...new Set(rows.map(key))].sort();
  return {
    labels: buckets.map(label),
    series: names.map((n) => ({
      label: n,
      data: buckets.map((b) => rows.filter((r) => r.bucket === b && key(r) === n).reduce((s, r) => s + value(r), 0)),
    })),
  };
}
