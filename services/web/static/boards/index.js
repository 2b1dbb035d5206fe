// Each game's board (SVG) and hand; any other game is shown as its view's fields.
import { el, words, valueText } from '../dom.js';
import * as mz from './moderne-zeiten.js';
import * as mw from './modern-world.js';
import * as madz from './mad-zeppelin.js';

const GENERIC = {
  board(view) {
    return el('dl', { class: 'generic' }, Object.entries(view).flatMap(([k, v]) => [el('dt', {}, words(k)), el('dd', {}, valueText(v))]));
  },
  hand() { return null; },
};

export const BOARDS = { 'moderne-zeiten': mz, 'modern-world': mw, 'mad-zeppelin': madz };
export const TITLES = { 'moderne-zeiten': 'Moderne Zeiten', 'modern-world': 'Modern World', 'mad-zeppelin': 'Mad Zeppelin' };
export const boardFor = (game) => BOARDS[game] || GENERIC;
export const title = (game) => TITLES[game] || game;
