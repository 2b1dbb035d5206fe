// Each seat's score (solid) and money (dashed) over the match's versions, with the version shown marked.
import { svg, seatColour } from './dom.js';

const W = 900;
const H = 220;
const PAD = { l: 40, r: 12, t: 12, b: 24 };

function scaleOf(series) {
  let hi = 1;
  for (const row of series || []) for (const v of row) if (typeof v === 'number' && v > hi) hi = v;
  return hi;
}

function line(series, seat, hi, last, dashed) {
  const pts = [];
  series.forEach((row, version) => {
    const v = row[seat];
    if (typeof v !== 'number') return;
    const x = PAD.l + (last ? version / last : 0) * (W - PAD.l - PAD.r);
    const y = PAD.t + (1 - v / hi) * (H - PAD.t - PAD.b);
    pts.push(`${x.toFixed(1)},${y.toFixed(1)}`);
  });
  return pts.length ? svg('polyline', { points: pts.join(' '), fill: 'none', stroke: seatColour(seat), 'stroke-width': dashed ? 1.5 : 2.5, 'stroke-dasharray': dashed ? '5 4' : null, 'data-seat': seat, 'data-series': dashed ? 'money' : 'score' }) : null;
}

export function chart(overview, version, onPick) {
  const last = overview.last;
  const hi = Math.max(scaleOf(overview.scores), scaleOf(overview.money));
  const marker = PAD.l + (last ? version / last : 0) * (W - PAD.l - PAD.r);
  const parts = [svg('title', {}, 'Scores (solid) and money (dashed) by version'),
    svg('line', { x1: PAD.l, x2: W - PAD.r, y1: H - PAD.b, y2: H - PAD.b, stroke: '#94a3b8' }),
    svg('line', { x1: PAD.l, x2: PAD.l, y1: PAD.t, y2: H - PAD.b, stroke: '#94a3b8' }),
    svg('text', { x: 4, y: PAD.t + 10, 'font-size': 11 }, String(hi)), svg('text', { x: 4, y: H - PAD.b, 'font-size': 11 }, '0'),
    svg('text', { x: W - PAD.r - 60, y: H - 6, 'font-size': 11 }, `version ${last}`)];
  for (let s = 0; s < overview.seats; s++) {
    parts.push(line(overview.scores, s, hi, last, false));
    if (overview.money) parts.push(line(overview.money, s, hi, last, true));
  }
  parts.push(svg('line', { x1: marker, x2: marker, y1: PAD.t, y2: H - PAD.b, stroke: '#0f172a', 'stroke-width': 1.5, id: 'chart-marker' }));
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'score chart' }, parts);
  root.addEventListener('click', (e) => {
    const box = root.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * W;
    const v = Math.round(((x - PAD.l) / (W - PAD.l - PAD.r)) * last);
    onPick(Math.max(0, Math.min(last, v)));
  });
  return root;
}
