// The page's routes (in the URL's fragment, so every page has a shareable address):
//   #/                                   the lobby
//   #/match/<id>/seat/<n>                play seat n (its token kept in this browser)
//   #/match/<id>/watch                   spectate: the public view, live
//   #/match/<id>/replay?v=<V>&p=<public|seat>   a finished match, version V, as p saw it
//   #/ladder[/<game>[/player/<name>]]   the ratings ladder of a game, a player's rated matches
//   #/help                               keys and help
//   #/rules/<game>                       the game's rules in short
//   #/me                                 you: sign up or in (a player name and its API key, kept in this browser)
import { el, clear } from './dom.js';
import { unnotify, connection } from './notice.js';
import { lobbyPage } from './lobby.js';
import { tablePage } from './table.js';
import { replayPage } from './replay.js';
import { ladderPage } from './ladder.js';
import { mePage, showIdentity } from './me.js';
import { rulesPage } from './rules.js';

let leave = null;

function help(root) {
  clear(root, el('h1', {}, 'Keys and help'),
    el('div', { class: 'panel' },
      el('p', {}, 'The lobby lists open, running and finished matches. Create a match, take a seat (the seat token stays in this browser) and give the empty seats to the service\'s bots, or watch a running match, or replay a finished one.'),
      el('h2', {}, 'Replay keys'),
      el('ul', {},
        el('li', {}, el('kbd', {}, '←'), ' / ', el('kbd', {}, '→'), ' one version back / on; ', el('kbd', {}, 'Shift'), ' with them: ten'),
        el('li', {}, el('kbd', {}, 'Home'), ' / ', el('kbd', {}, 'End'), ' the first / the last version'),
        el('li', {}, el('kbd', {}, 'Space'), ' play or pause'),
        el('li', {}, el('kbd', {}, 'p'), ' the next perspective (public, then each seat); ', el('kbd', {}, '0'), '–', el('kbd', {}, '9'), ' that seat\'s; ', el('kbd', {}, 'v'), ' the public one'),
        el('li', {}, el('kbd', {}, 'l'), ' copy the link to this version and perspective')),
      el('p', {}, 'The same service answers bots and other programs over HTTP and WebSocket: see ', el('a', { href: '/docs' }, '/docs'), '.')));
  return null;
}

function route() {
  if (leave) { leave(); leave = null; }
  unnotify();
  connection('', '');
  const root = document.getElementById('app');
  const [path, query] = (location.hash.replace(/^#/, '') || '/').split('?');
  const params = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'match' && parts[1]) {
    if (parts[2] === 'seat' && /^\d+$/.test(parts[3] || '')) leave = tablePage(root, parts[1], Number(parts[3]));
    else if (parts[2] === 'watch') leave = tablePage(root, parts[1], null);
    else if (parts[2] === 'replay') leave = replayPage(root, parts[1], params);
    else location.hash = '#/';
  } else if (parts[0] === 'ladder') {
    leave = ladderPage(root, parts[1] || null, parts[2] === 'player' ? parts[3] || null : null);
  } else if (parts[0] === 'help') {
    leave = help(root);
  } else if (parts[0] === 'rules') {
    leave = rulesPage(root, parts[1] || null);
  } else if (parts[0] === 'me') {
    leave = mePage(root);
  } else {
    leave = lobbyPage(root);
  }
  document.body.dataset.page = parts[0] === 'match' ? parts[2] : (parts[0] || 'lobby');
}

window.addEventListener('hashchange', route);
showIdentity();
route();
