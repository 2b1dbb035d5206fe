// The ladder: each game's standings (rank, player, rating, matches, wins), a player's rated matches with the
// rating before and after each, and how many wait in the arena's queue (refreshed every few seconds).
//   #/ladder                         the first game's standings
//   #/ladder/<game>                  that game's
//   #/ladder/<game>/player/<name>    that player's rated matches of the game
import { api } from './api.js';
import { el, clear } from './dom.js';
import { notify } from './notice.js';
import { games as listGames, title } from './boards/index.js';
import { controlRules } from './clock.js';
import { ratedPanel } from './rated.js';

const REFRESH_MS = 5000;
const fixed = (x, digits = 2) => (typeof x === 'number' ? x.toFixed(digits) : '–');
const percent = (wins, games) => (games ? `${Math.round((100 * wins) / games)}%` : '–');
const ladderLink = (game, player) => `#/ladder/${encodeURIComponent(game)}${player ? `/player/${encodeURIComponent(player)}` : ''}`;

function problemText(e) { return e.detail || e.message || String(e); }

function standingsTable(game, rows) {
  if (!rows.length) {
    return el('p', { class: 'muted', id: 'no-standings' }, `No rated match of ${title(game)} yet. Registered bots climb the ladder by playing rated matches: `,
      el('code', {}, `airship arena --game ${game} --key-file KEY --bot heuristic`), ' queues one and plays until stopped.');
  }
  return el('table', { class: 'matches ladder', id: 'standings' },
    el('thead', {}, el('tr', {}, ['#', 'player', 'rating', 'μ', 'σ', 'matches', 'wins', 'win rate', 'last match'].map((h) => el('th', {}, h)))),
    el('tbody', {}, rows.map((row, i) => el('tr', { 'data-player': row.player },
      el('td', { class: 'rank' }, String(i + 1)),
      el('td', {}, el('a', { href: ladderLink(game, row.player), class: 'player' }, row.player)),
      el('td', { class: 'num rating' }, fixed(row.rating)),
      el('td', { class: 'num' }, fixed(row.mu)),
      el('td', { class: 'num' }, fixed(row.sigma)),
      el('td', { class: 'num games' }, String(row.games)),
      el('td', { class: 'num wins' }, String(row.wins)),
      el('td', { class: 'num' }, percent(row.wins, row.games)),
      el('td', {}, row.last_match ? el('a', { href: `#/match/${encodeURIComponent(row.last_match)}/replay`, class: 'muted' }, row.last_match) : '–')))));
}

function historyTable(game, player, rows) {
  if (!rows.length) return el('p', { class: 'muted' }, `${player} has no rated match of ${title(game)}.`);
  const newest = [...rows].reverse();
  return el('table', { class: 'matches ladder', id: 'history' },
    el('thead', {}, el('tr', {}, ['match', 'seat', 'place', 'score', 'players', 'rating', 'change'].map((h) => el('th', {}, h)))),
    el('tbody', {}, newest.map((row) => {
      const change = row.after - row.before;
      return el('tr', { 'data-match': row.match_id, class: row.won ? 'won' : '' },
        el('td', {}, el('a', { href: `#/match/${encodeURIComponent(row.match_id)}/replay` }, row.match_id)),
        el('td', { class: 'num' }, String(row.seat)),
        el('td', { class: 'num' }, `${row.rank + 1}${row.won ? ' (won)' : ''}`),
        el('td', { class: 'num' }, String(row.score)),
        el('td', {}, row.players.map((p, i) => [i ? ', ' : '', p === player ? el('strong', {}, p) : el('a', { href: ladderLink(game, p) }, p)])),
        el('td', { class: 'num' }, `${fixed(row.before)} → ${fixed(row.after)}`),
        el('td', { class: `num ${change >= 0 ? 'up' : 'down'}` }, `${change >= 0 ? '+' : ''}${fixed(change)}`));
    })));
}

function arenaLine(status) {
  const waiting = status.queues.filter((q) => q.waiting > 0);
  return el('p', { class: 'muted', id: 'arena' }, 'Arena queue: ',
    waiting.length ? waiting.map((q, i) => `${i ? ', ' : ''}${q.waiting} waiting for ${q.seats} seats`) : 'nobody waiting',
    ` (bots queue with their API key: POST /arena/${status.game}/queue).`);
}

export function ladderPage(root, game, player) {
  let timer = null;
  let stopped = false;
  const tabs = el('nav', { class: 'tabs', id: 'games', 'aria-label': 'games' });
  const body = el('section', { class: 'panel', id: 'ladder' }, el('p', { class: 'muted' }, 'Loading…'));
  const heading = el('h1', {}, 'Ladder');
  const rated = game && !player ? ratedPanel(game) : null;  // (outside the part refreshed every few seconds)
  clear(root, heading, tabs, body, rated ? rated.node : null);

  async function refresh() {
    clearTimeout(timer);
    try {
      const games = await listGames();  // the titles
      if (!game) {
        if (!games.length) return;
        location.replace(ladderLink(games[0].name));
        return;
      }
      if (player) {
        let rows = [];
        try {
          rows = (await api('GET', `/ladder/${encodeURIComponent(game)}/players/${encodeURIComponent(player)}`)).history;
        } catch (err) {
          if (err.status !== 404) throw err;
        }
        const standing = (await api('GET', `/ladder/${encodeURIComponent(game)}`)).standings.findIndex((r) => r.player === player);
        heading.textContent = `${player} · ${title(game)}`;
        clear(body, el('p', {}, el('a', { href: ladderLink(game) }, `← the ${title(game)} ladder`),
          standing >= 0 ? ` · rank ${standing + 1}` : ''),
        historyTable(game, player, rows));
      } else {
        const [ladder, status] = await Promise.all([api('GET', `/ladder/${encodeURIComponent(game)}`),
          api('GET', `/arena/${encodeURIComponent(game)}`).catch(() => null)]);
        heading.textContent = `Ladder · ${title(game)}`;
        const rated = games.find((g) => g.name === game)?.rated_clock;
        clear(body, standingsTable(game, ladder.standings), status ? arenaLine(status) : null,
          rated ? el('p', { id: 'rated-clock' }, `Rated matches are clocked: ${controlRules(rated)}.`) : null,
          el('p', { class: 'muted' }, 'Rating: μ − 3σ, the Weng-Lin (Plackett-Luce) estimate of skill μ less three times its uncertainty σ; it orders the ladder.'));
      }
    } catch (err) {
      notify(`The ladder could not be loaded: ${problemText(err)}`, [['Retry', refresh]]);
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }

  listGames().then((listed) => {
    clear(tabs, listed.map((x) => el('a', { href: ladderLink(x.name), class: x.name === game ? 'tab current' : 'tab', 'data-game': x.name }, title(x.name))));
  }).catch(() => {});
  refresh();
  return () => { stopped = true; clearTimeout(timer); if (rated) rated.stop(); };
}
