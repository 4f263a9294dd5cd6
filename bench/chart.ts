// docs/benchmarks.svg: one group of horizontal bars per scenario (median req/s, each group on its
// own scale), hand-rolled so the harness needs no charting package.
import type { ScenarioSummary } from './summarize.js';

const WIDTH = 820;
const LABEL = 190;
const BAR_SPACE = 500;
const ROW = 22;
const TITLE = 26;

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function colour(label: string): string {
  if (label.startsWith('plant-store') || label.startsWith('limit=')) return '#2e7d32';
  if (label.startsWith('ceiling')) return '#9e9e9e';
  if (label === 'express-peer') return '#1565c0';
  return '#ef6c00';
}

export function chart(summaries: ScenarioSummary[], caption: string): string {
  const parts: string[] = [];
  let y = 34;
  for (const summary of summaries) {
    parts.push(`<text x="10" y="${y + 16}" font-weight="bold">${escape(summary.title)}</text>`);
    y += TITLE;
    const top = Math.max(...summary.contestants.map((c) => c.requestsPerSecond).filter(Number.isFinite), 1);
    for (const contestant of summary.contestants) {
      const rps = Number.isFinite(contestant.requestsPerSecond) ? contestant.requestsPerSecond : 0;
      const width = Math.max(1, Math.round((rps / top) * BAR_SPACE));
      parts.push(
        `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end">${escape(contestant.label)}</text>`,
        `<rect x="${LABEL}" y="${y + 3}" width="${width}" height="${ROW - 6}" fill="${colour(contestant.label)}"/>`,
        `<text x="${LABEL + width + 6}" y="${y + 15}">${Math.round(rps).toLocaleString('en')} req/s</text>`,
      );
      y += ROW;
    }
    y += 10;
  }
  const height = y + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="20" font-size="14">${escape(caption)}</text>
${parts.join('\n')}
</svg>
`;
}
