// Each game's board (SVG) and hand come from the game's own package: GET /games names each game's title and the
// URL of its board module (an ES module exporting board(view) and hand(view)); any other game is shown as its
// view's fields. Call games() (once; it is cached) before title() or boardFor().
import { el, words, valueText } from '../dom.js';
import { api } from '../api.js';

const GENERIC = {
  board(view) {
    return el('dl', { class: 'generic' }, Object.entries(view).flatMap(([k, v]) => [el('dt', {}, words(k)), el('dd', {}, valueText(v))]));
  },
  hand() { return null; },
};

let listed = null;
const known = new Map();

export async function games() {
  if (!listed) {
    listed = api('GET', '/games').then((got) => {
      for (const g of got.games) known.set(g.name, g);
      return got.games;
    }).catch((e) => { listed = null; throw e; });
  }
  return listed;
}

export async function boardFor(game) {
  await games().catch(() => []);
  const url = known.get(game)?.board;
  if (!url) return GENERIC;
  try {
    return await import(url);
  } catch (e) {
    return GENERIC;
  }
}

export const title = (game) => known.get(game)?.title || game;
