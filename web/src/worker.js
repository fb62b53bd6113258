// worker.js: the fray program in a Web Worker, so that the page never
// waits on it. It is started from a Blob URL (a browser will not start a
// worker from a file:// address), with the WebAssembly inside it.
//
// Messages from the page:
//   {type: 'init', files: {PATH: TEXT}}        the rules and examples, in /fray
//   {type: 'command', id, argv, files}         runs `fray ARGV...` after writing files
// Messages to the page:
//   {type: 'ready'}
//   {type: 'progress', id, done, runs}         while a simulation plays
//   {type: 'done', id, code, ms, lines, events}
//       lines: [['out' | 'err', TEXT], ...] in the order they were printed;
//       events: [{kind, data}, ...] from web/fray_web.c (diagnostic,
//       distribution, sim)
//   {type: 'crashed', id, message}             the module stopped (an abort)
import createFray from 'fray-wasm';

const HOME = '/fray';
let fray = null;
let lines = [];
let events = [];
let current = null;

// bytes of stdout or stderr into lines, UTF-8 decoded
function lineSink(stream) {
  const decoder = new TextDecoder();
  let bytes = [];
  const sink = (c) => {
    if (c === 10) {
      lines.push([stream, decoder.decode(new Uint8Array(bytes))]);
      bytes = [];
    } else {
      bytes.push(c);
    }
  };
  // a last line without its newline
  sink.flush = () => {
    if (bytes.length) sink(10);
  };
  return sink;
}
const stdout = lineSink('out');
const stderr = lineSink('err');

function writeFile(path, text) {
  const parts = path.split('/');
  let dir = '';
  for (const part of parts.slice(0, -1)) {
    dir = dir ? `${dir}/${part}` : part;
    if (!fray.FS.analyzePath(dir).exists) fray.FS.mkdir(dir);
  }
  fray.FS.writeFile(path, text);
}

function onEvent(kind, json) {
  const data = JSON.parse(json);
  if (kind === 'progress') {
    postMessage({ type: 'progress', id: current, done: data.done, runs: data.runs });
    return;
  }
  events.push({ kind, data });
}

async function init(files) {
  fray = await createFray({
    stdin: () => null,
    stdout,
    stderr,
    frayEvent: onEvent,
    // what the module itself says (it aborted): on stderr as well
    printErr: (text) => lines.push(['err', text]),
  });
  fray.FS.mkdir(HOME);
  fray.FS.chdir(HOME);
  for (const [path, text] of Object.entries(files)) writeFile(path, text);
  postMessage({ type: 'ready' });
}

function command({ id, argv, files }) {
  current = id;
  lines = [];
  events = [];
  for (const [path, text] of Object.entries(files || {})) writeFile(path, text);
  const start = performance.now();
  let code;
  try {
    code = fray.callMain(argv.slice());
    fray._fray_web_flush();
  } catch (e) {
    stdout.flush();
    stderr.flush();
    postMessage({ type: 'crashed', id, message: String(e), lines, events });
    return;
  }
  stdout.flush();
  stderr.flush();
  const ms = performance.now() - start;
  postMessage({ type: 'done', id, code, ms, lines, events });
}

self.onmessage = (e) => {
  const m = e.data;
  if (m.type === 'init') init(m.files);
  else if (m.type === 'command') command(m);
};
