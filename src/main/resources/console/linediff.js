// A line diff (longest common subsequence) between two texts, for comparing rule files.
// Returns [{op: ' ' | '+' | '-', text}] in order.
export function lineDiff(a, b) {
  const x = a === null || a === undefined ? [] : a.split('\n');
  const y = b === null || b === undefined ? [] : b.split('\n');
  const n = x.length;
  const m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) { out.push({ op: ' ', text: x[i] }); i++; j++; }
    else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push({ op: '-', text: x[i++] });
    else out.push({ op: '+', text: y[j++] });
  }
  while (i < n) out.push({ op: '-', text: x[i++] });
  while (j < m) out.push({ op: '+', text: y[j++] });
  return out;
}

/** Only changed lines and {@code context} lines around them; gaps become one '…' line. */
export function hunks(diff, context = 3) {
  const keep = diff.map(() => false);
  diff.forEach((d, k) => {
    if (d.op !== ' ') for (let c = Math.max(0, k - context); c <= Math.min(diff.length - 1, k + context); c++) keep[c] = true;
  });
  const out = [];
  let gap = false;
  diff.forEach((d, k) => {
    if (keep[k]) { out.push(d); gap = false; } else if (!gap) { out.push({ op: '…', text: '' }); gap = true; }
  });
  return out;
}
