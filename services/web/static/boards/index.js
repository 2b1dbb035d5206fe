// Each game's board (SVG) and hand come from the game's own package: GET /games names each game's title, the
// URL of its board module (an ES module exporting board(view, seat, texts, width), hand(view, texts) and, optionally,
// describe(choice, view, texts): a legal move in words, see controls.js), the URL of its
// pieces in words (texts: {kind: {name: words}}, built from the game's data) and of its rules in short; any other
// game is shown as its view's fields. Call games() (once; it is cached) before title() or boardFor().
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
const texts = new Map();

export async function games() {
  if (!listed) {
    listed = api('GET', '/games').then((got) => {
      for (const g of got.games) known.set(g.name, g);
      return got.games;
    }).catch((e) => { listed = null; throw e; });
  }
  return listed;
}

async function textsOf(game) {  // the game's pieces in words ({} when it has none or they cannot be had)
  const url = known.get(game)?.texts;
  if (!url) return {};
  if (!texts.has(game)) texts.set(game, fetch(url).then((r) => (r.ok ? r.json() : {})).catch(() => { texts.delete(game); return {}; }));
  return texts.get(game);
}

export async function boardFor(game) {
  await games().catch(() => []);
  const url = known.get(game)?.board;
  if (!url) return GENERIC;
  try {
    const [module, words_] = await Promise.all([import(url), textsOf(game)]);
    return {
      board: (view, seat, width) => module.board(view, seat, words_, width),  // drawn to its box's width (CSS px)
      hand: (view) => module.hand(view, words_),
      describe: (choice, view, legal) => (module.describe ? module.describe(choice, view, words_, legal || []) : null),  // a move in words
      texts: words_,
    };
  } catch (e) {
    return GENERIC;
  }
}

export const title = (game) => known.get(game)?.title || game;
export const rulesOf = (game) => known.get(game)?.rules || null;
