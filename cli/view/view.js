// The players' view of a Fray session: what `fray repl --serve` shows the
// table. It only reads: the server sends the view (as the players may know
// it) at each change, and this page draws it.
'use strict';

const token = new URLSearchParams(location.search).get('t');
const query = token ? '?t=' + encodeURIComponent(token) : '';
const $ = (id) => document.getElementById(id);

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function setStatus(text, live) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('live', live);
}

function hitPoints(stats) {
  if (typeof stats.hp !== 'number') return null;
  const box = element('div', 'hp');
  const max = typeof stats.max_hp === 'number' ? stats.max_hp : null;
  if (max && max > 0) {
    const share = Math.max(0, Math.min(1, stats.hp / max));
    const bar = element('div', share <= 0.25 ? 'bar low' : 'bar');
    const fill = element('span');
    fill.style.width = (100 * share).toFixed(1) + '%';
    bar.appendChild(fill);
    box.appendChild(bar);
    box.appendChild(element('span', null, stats.hp + ' / ' + max + ' hp'));
  } else {
    box.appendChild(element('span', null, stats.hp + ' hp'));
  }
  return box;
}

function creatureItem(c, entry, current) {
  const li = element('li', 'creature');
  li.dataset.name = c.name;
  if (current) li.classList.add('current');
  if (c.out) li.classList.add('out');
  const line = element('div', 'line');
  line.appendChild(element('span', 'name', c.title || c.name));
  if (c.side) line.appendChild(element('span', 'side', c.side));
  if (entry && entry.score !== undefined && entry.score !== null) line.appendChild(element('span', 'score', 'initiative ' + entry.score));
  if (c.delaying) line.appendChild(element('span', 'side', 'delaying'));
  li.appendChild(line);
  const hp = hitPoints(c.stats || {});
  if (hp) li.appendChild(hp);
  if (c.effects && c.effects.length) {
    const ul = element('ul', 'effects');
    for (const e of c.effects) {
      const what = e.name + (e.with ? ' (' + e.with + ')' : '');
      ul.appendChild(element('li', null, e.lasts ? what + ': ' + e.lasts : what));
    }
    li.appendChild(ul);
  }
  return li;
}

function render(view) {
  const state = view.state || {};
  const enc = state.encounter || {};
  const creatures = state.creatures || [];
  const byName = new Map(creatures.map((c) => [c.name, c]));
  $('heading').textContent = enc.active ? 'Round ' + enc.round + (enc.turn ? ': ' + ((byName.get(enc.turn) || {}).title || enc.turn) + "'s turn" : '') : 'Between encounters';
  const order = $('order');
  order.replaceChildren();
  const listed = new Set();
  for (const entry of enc.order || []) {
    const c = byName.get(entry.name) || { name: entry.name, stats: {}, effects: [] };
    listed.add(entry.name);
    order.appendChild(creatureItem(c, entry, entry.name === enc.turn));
  }
  $('no-order').hidden = (enc.order || []).length > 0;
  const others = $('others');
  others.replaceChildren();
  for (const c of creatures) if (!listed.has(c.name) && c.in_play) others.appendChild(creatureItem(c, null, false));
  $('others-section').hidden = others.children.length === 0;
  const log = $('log');
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  log.replaceChildren(...(view.log || []).map((text) => element('li', null, text)));
  if (atEnd) log.scrollTop = log.scrollHeight;
}

function connect() {
  const events = new EventSource('events' + query);
  events.onmessage = (e) => {
    render(JSON.parse(e.data));
    setStatus('live', true);
  };
  // the browser reconnects by itself; say so meanwhile
  events.onerror = () => setStatus('reconnecting', false);
}

// the view as it was when the page was sent, so that the page is drawn at
// once, before its stream opens
const first = $('first-view').textContent;
if (first) render(JSON.parse(first));
connect();
