// terminal.js: what a command printed, as a terminal shows it. The
// transcript is coloured as `fray repl` colours it on a terminal
// (cli/cmd_repl.c, print_line): a check's outcome green or red, a refusal
// yellow, the start of a turn or round bold; diagnostics as the library
// colours them (the level: error red, warning magenta, note cyan).
const HIDDEN = '(gm) ';

function span(cls, text) {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  return s;
}

// the REPL's colours for a line of the transcript
function transcriptLine(line) {
  const out = document.createElement('div');
  out.className = 'line';
  if (line.startsWith(HIDDEN)) {
    out.append(span('c-hidden', HIDDEN));
    line = line.slice(HIDDEN.length);
  }
  const colon = line.lastIndexOf(':');
  const vs = line.includes(' vs ') && colon >= 0;
  if (vs && (line.endsWith(': hit') || line.endsWith(': success'))) {
    out.append(line.slice(0, colon + 2), span('c-good', line.slice(colon + 2)));
  } else if (vs && (line.endsWith(': miss') || line.endsWith(': failure'))) {
    out.append(line.slice(0, colon + 2), span('c-bad', line.slice(colon + 2)));
  } else if (line.includes(' cannot ') || line.startsWith('no: ')) {
    out.append(span('c-refused', line));
  } else if (line.startsWith('round ') || line.endsWith("'s turn") || line.endsWith("' turn")) {
    out.append(span('c-turn', line));
  } else {
    out.append(line);
  }
  return out;
}

const located = /^(.*?):(\d+):(\d+): (error|warning|note): /;
const unlocated = /^(fray(?: [a-z]+)?): (error|warning|note): /;

// a line of standard error: a diagnostic's first line is a link to its place
function errorLine(line, onLocation) {
  const out = document.createElement('div');
  out.className = 'line err';
  let m = located.exec(line);
  if (m) {
    const where = document.createElement('a');
    where.href = '#';
    where.className = 'where';
    where.textContent = `${m[1]}:${m[2]}:${m[3]}:`;
    where.addEventListener('click', (e) => {
      e.preventDefault();
      onLocation(m[1], Number(m[2]), Number(m[3]));
    });
    out.append(where, ' ', span(`c-${m[4]}`, `${m[4]}:`), line.slice(m[0].length - 1));
    return out;
  }
  m = unlocated.exec(line);
  if (m) {
    out.append(`${m[1]}: `, span(`c-${m[2]}`, `${m[2]}:`), line.slice(m[0].length - 1));
    return out;
  }
  out.append(line);
  return out;
}

// lines: [['out' | 'err', text], ...]; transcript: colour stdout as play
export function renderLines(pre, lines, { transcript, onLocation }) {
  const frag = document.createDocumentFragment();
  for (const [stream, text] of lines) {
    if (stream === 'err') frag.append(errorLine(text, onLocation));
    else if (transcript) frag.append(transcriptLine(text));
    else {
      const d = document.createElement('div');
      d.className = 'line';
      d.textContent = text;
      frag.append(d);
    }
  }
  pre.append(frag);
}
