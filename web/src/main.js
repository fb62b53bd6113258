// main.js: the playground. An editor for a rules file (CodeMirror, with
// Fray's highlighting and its diagnostics in place), a command line that
// runs the fray program's own commands on it in a Web Worker (run, prob,
// sim, diff, check, ...), their output as a terminal shows it, charts for
// prob and sim, and a link that brings the file and the command back.
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection } from '@codemirror/view';
import { EditorState } from '@codemirror/state';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching } from '@codemirror/language';
import { linter, lintGutter, setDiagnostics } from '@codemirror/lint';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { parse as shellParse, quote as shellQuote } from 'shell-quote';
import bundled from 'fray:files';
import { frayLanguage, frayHighlighting } from './fray-lang.js';
import { FrayWorker } from './fray-worker.js';
import { probCharts, simCharts } from './charts.js';
import { encodeState, decodeState } from './share.js';
import { renderLines } from './terminal.js';
import './style.css';

const DEFAULT_FILE = 'examples/skirmish.rules';
const $ = (id) => document.getElementById(id);

// --- files: the bundled ones, and what was edited of them -----------------------
const edits = new Map();
let currentFile = DEFAULT_FILE;

function textOf(path) {
  return edits.has(path) ? edits.get(path) : bundled[path] || '';
}

function fillFileMenu() {
  const groups = [
    ['Rule systems', (p) => p.startsWith('rules/')],
    ['Skirmishes', (p) => /^examples\/[^/]+$/.test(p)],
    ['Balanced parties', (p) => p.startsWith('examples/balanced/')],
    ['House rules', (p) => p.startsWith('examples/variants/')],
    ['Reference fights', (p) => p.startsWith('examples/profiles/')],
  ];
  const menu = $('file');
  for (const [label, test] of groups) {
    const group = document.createElement('optgroup');
    group.label = label;
    for (const path of Object.keys(bundled).filter(test).sort()) group.append(new Option(path, path));
    menu.append(group);
  }
}

function selectFile(path) {
  const menu = $('file');
  if (![...menu.options].some((o) => o.value === path)) menu.append(new Option(path, path));
  menu.value = path;
}

// --- the editor --------------------------------------------------------------------
function fileChanged() {
  edits.set(currentFile, view.state.doc.toString());
}

// Fray's diagnostics of the file in the editor, as CodeMirror's
function toEditorDiagnostics(events, doc) {
  const out = [];
  for (const { kind, data: d } of events) {
    if (kind !== 'diagnostic' || d.file !== currentFile || d.line < 1 || d.line > doc.lines) continue;
    const line = doc.line(d.line);
    const from = line.from + Math.min(Math.max(d.column - 1, 0), line.length);
    const word = /^[A-Za-z0-9_§."]*/.exec(line.text.slice(from - line.from))[0];
    out.push({
      from,
      to: Math.min(line.to, from + Math.max(word.length, 1)),
      severity: d.level === 'note' ? 'info' : d.level,
      source: 'fray',
      message: d.message,
    });
  }
  return out;
}

// `fray check` on the file as it is typed
const liveCheck = linter(
  async (v) => {
    if (fray.busy) return lastDiagnostics;
    const result = await fray.run(['check', currentFile], changedFiles());
    lastDiagnostics = result.events ? toEditorDiagnostics(result.events, v.state.doc) : [];
    return lastDiagnostics;
  },
  { delay: 700 },
);
let lastDiagnostics = [];

const view = new EditorView({
  parent: $('editor'),
  state: EditorState.create({
    doc: '',
    extensions: [
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      drawSelection(),
      bracketMatching(),
      highlightActiveLine(),
      highlightSelectionMatches(),
      EditorView.lineWrapping,
      frayLanguage,
      frayHighlighting,
      lintGutter(),
      liveCheck,
      keymap.of([
        { key: 'Mod-Enter', run: () => (runCommand(), true) },
        ...defaultKeymap,
        ...historyKeymap,
        ...searchKeymap,
        indentWithTab,
      ]),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) fileChanged();
      }),
    ],
  }),
});

function openFile(path, text) {
  currentFile = path;
  selectFile(path);
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text ?? textOf(path) } });
  if (text != null) edits.set(path, text);
}

function goTo(file, line, column) {
  if (file !== currentFile) {
    if (!(file in bundled) && !edits.has(file)) return;
    openFile(file);
  }
  const doc = view.state.doc;
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
  const pos = l.from + Math.min(Math.max(column - 1, 0), l.length);
  view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
  view.focus();
}

// --- the worker ---------------------------------------------------------------------
const fray = new FrayWorker(bundled, (done, runs) => showProgress(done, runs));

// what the worker must write before a command: every file edited here
function changedFiles() {
  return Object.fromEntries(edits);
}

// --- commands ---------------------------------------------------------------------------
function templates() {
  const file = shellQuote([currentFile]);
  const system = /^\s*system\s/m.test(view.state.doc.toString());
  return {
    run: `run --seed 1 ${file}`,
    prob: `prob 2d6 4d6kh3 'd20 + 5 >= 15'`,
    sim: `sim -n 200 ${file}`,
    diff: system ? `diff --brief legend ${file}` : 'diff --brief legend shock',
  };
}

// the command line as the program's arguments (as a shell splits them)
function parseCommand(text) {
  const words = shellParse(text.trim());
  if (words.some((w) => typeof w !== 'string')) return null;
  if (words[0] === 'fray') words.shift();
  return words.length ? words : null;
}

function showProgress(done, runs) {
  const bar = $('progress');
  bar.hidden = false;
  bar.querySelector('progress').max = runs;
  bar.querySelector('progress').value = done;
  bar.querySelector('span').textContent = `${done} of ${runs} runs`;
}

function setBusy(busy) {
  document.body.classList.toggle('busy', busy);
  $('cancel').hidden = !busy;
  for (const b of document.querySelectorAll('.command-button, #go')) b.disabled = busy;
}

let running = false;

async function runCommand() {
  if (running) return; // one at a time: Cancel stops it
  const text = $('command').value;
  const argv = parseCommand(text);
  const term = $('terminal');
  const charts = $('charts');
  term.textContent = '';
  charts.textContent = '';
  $('status').textContent = '';
  if (!argv) {
    renderLines(term, [['err', 'fray: a command, as in a terminal: run --seed 1 FILE, prob 2d6, sim FILE, diff A B']], {
      onLocation: goTo,
    });
    return;
  }
  $('prompt').textContent = `$ fray ${argv.map((a) => shellQuote([a])).join(' ')}`;
  setBusy(true);
  running = true;
  $('progress').hidden = true;
  const result = await fray.run(argv, changedFiles());
  lastResult = result;
  running = false;
  setBusy(false);
  $('progress').hidden = true;
  if (result.cancelled) {
    $('status').textContent = 'cancelled';
    return;
  }
  const events = result.events || [];
  if (argv[0] === 'prob') charts.append(...probCharts(events));
  if (argv[0] === 'sim') charts.append(...simCharts(events));
  renderLines(term, result.lines || [], { transcript: argv[0] === 'run', onLocation: goTo });
  $('status').textContent = result.crashed
    ? `stopped: ${result.message}`
    : `exit ${result.code} · ${result.ms < 1000 ? `${result.ms.toFixed(0)} ms` : `${(result.ms / 1000).toFixed(2)} s`}`;
  $('status').dataset.exit = result.crashed ? 'crashed' : String(result.code);
  view.dispatch(setDiagnostics(view.state, toEditorDiagnostics(events, view.state.doc)));
}
let lastResult = null;

// --- share ------------------------------------------------------------------------------
async function share() {
  const hash = await encodeState({ file: currentFile, source: view.state.doc.toString(), command: $('command').value });
  window.history.replaceState(null, '', hash);
  const link = location.href;
  $('link').value = link;
  $('link').hidden = false;
  $('link').select();
  try {
    await navigator.clipboard.writeText(link);
    $('status').textContent = 'link copied';
  } catch {
    $('status').textContent = 'link in the box above';
  }
}

async function restore(run) {
  const state = await decodeState(location.hash);
  if (!state) return false;
  openFile(state.file, state.source);
  $('command').value = state.command;
  if (run) runCommand();
  return true;
}

// What the page holds, for a reader at the console and for tests/web.test.
window.playground = {
  get file() {
    return currentFile;
  },
  get source() {
    return view.state.doc.toString();
  },
  get command() {
    return $('command').value;
  },
  get result() {
    return lastResult;
  },
  view,
};

// --- start --------------------------------------------------------------------------------
fillFileMenu();
$('file').addEventListener('change', (e) => openFile(e.target.value));
$('command').addEventListener('keydown', (e) => {
  if (e.key === 'Enter') runCommand();
});
$('go').addEventListener('click', runCommand);
$('cancel').addEventListener('click', () => fray.cancel());
$('share').addEventListener('click', share);
for (const b of document.querySelectorAll('.command-button'))
  b.addEventListener('click', () => {
    $('command').value = templates()[b.dataset.command];
    runCommand();
  });
window.addEventListener('hashchange', () => restore(true));

restore(true).then((restored) => {
  if (restored) return;
  openFile(DEFAULT_FILE);
  $('command').value = templates().run;
  runCommand();
});
