// fray-lang.js: Fray's highlighting in CodeMirror, from the words of the
// language as `fray help` gives them at build time (web/build.sh), the
// vocabulary the Vim and TextMate grammars of contrib/ cover; the lexical
// rules are doc/language.md's section 2.
import { StreamLanguage, HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import vocabulary from 'fray:vocabulary';

const set = (k) => new Set(vocabulary[k] || []);
const keywords = set('keywords');
const declarations = set('declarations');
const clauses = set('clauses');
const commands = set('commands');
const functions = set('functions');
const events = set('events');
const control = new Set(['if', 'else', 'for', 'repeat', 'return', 'fail', 'emit', 'when', 'unless']);
const atoms = new Set(['yes', 'no', 'true', 'false', 'nothing', 'self']);

// doc/language.md 2.6: a dice literal is one token (3d6, 4d6kh3, d6!>5, 10d10>=8f1)
const dice =
  /^[0-9]*d(?:[0-9]+|%|F)(?:(?:kh|kl|dh|dl|k|d)[0-9]+|!(?:!|p)?(?:(?:[<>]=?|=)?[0-9]+)?|ro?(?:[<>]=?|=)?[0-9]+|(?:[<>]=?|=)[0-9]+|f(?:[<>]=?|=)?[0-9]+)*(?![A-Za-z0-9_])/;
// 2.5: a number and its unit
const quantity =
  /^[0-9]+(?:\.[0-9]+)?[ \t]*(?:ft|feet|foot|sq|squares?|m|meters?|metres?|s|secs?|seconds?|min|minutes?|hours?|rounds?|turns?|encounters?)(?![A-Za-z0-9_])/;
const number = /^[0-9]+(?:\.[0-9]+)?%?/;
const operator = /^(?:->|\.\.|\/\/|==|!=|<=|>=|\+=|-=|[-+*/<>=?:])/;

const frayMode = {
  name: 'fray',
  startState: () => ({ itemStart: true, depth: 0, cited: false, afterOn: false }),
  copyState: (s) => ({ ...s }),
  token(stream, state) {
    if (stream.sol()) state.itemStart = state.depth === 0;
    if (stream.eatSpace()) return null;
    if (stream.match('#')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.peek() === '"') {
      stream.next();
      let escaped = false;
      for (let c; (c = stream.next()) != null; ) {
        if (c === '"' && !escaped) break;
        escaped = !escaped && c === '\\';
      }
      const cited = state.cited;
      state.cited = false;
      return cited ? 'citation' : 'string';
    }
    state.cited = false;
    if (stream.match('§')) {
      state.cited = true;
      return 'citeMark';
    }
    if (stream.match(dice) || stream.match(quantity) || stream.match(number)) {
      state.itemStart = false;
      return 'number';
    }
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (word) return wordToken(word[0], stream, state);
    const c = stream.peek();
    if (c === ';' || c === '{' || c === '}') {
      stream.next();
      state.itemStart = true;
      return 'punctuation';
    }
    if (c === '(' || c === '[' || c === ')' || c === ']') {
      stream.next();
      state.depth = Math.max(0, state.depth + (c === '(' || c === '[' ? 1 : -1));
      return 'bracket';
    }
    if (stream.match(operator)) return 'operator';
    stream.next();
    return null;
  },
};

function wordToken(w, stream, state) {
  const first = state.itemStart;
  const afterOn = state.afterOn;
  state.itemStart = w === 'override';
  state.afterOn = w === 'on';
  if (w === 'cite') {
    state.cited = true;
    return 'citeMark';
  }
  if (stream.peek() === '(') {
    if (afterOn || events.has(w)) return 'event';
    return functions.has(w) ? 'builtinCall' : 'call';
  }
  if (first && declarations.has(w)) return 'declaration';
  if (first && commands.has(w)) return 'command';
  if (w === 'override') return 'declaration';
  if (atoms.has(w)) return 'atom';
  if (control.has(w)) return 'control';
  if (keywords.has(w)) return 'keyword';
  if (events.has(w) && afterOn) return 'event';
  if (state.depth === 0 && clauses.has(w)) return 'clause';
  return 'name';
}

export const frayLanguage = StreamLanguage.define({
  ...frayMode,
  tokenTable: {
    citeMark: t.meta,
    citation: t.special(t.string),
    declaration: t.definitionKeyword,
    command: t.moduleKeyword,
    clause: t.modifier,
    control: t.controlKeyword,
    builtinCall: t.standard(t.function(t.variableName)),
    call: t.function(t.variableName),
    event: t.special(t.variableName),
    name: t.variableName,
  },
});

const style = HighlightStyle.define([
  { tag: t.comment, color: '#6a737d', fontStyle: 'italic' },
  { tag: t.string, color: '#22863a' },
  { tag: t.special(t.string), color: '#7a5c00', fontStyle: 'italic' },
  { tag: t.meta, color: '#7a5c00', fontWeight: 'bold' },
  { tag: t.number, color: '#005cc5' },
  { tag: t.definitionKeyword, color: '#a3115d', fontWeight: 'bold' },
  { tag: t.moduleKeyword, color: '#6f42c1', fontWeight: 'bold' },
  { tag: t.modifier, color: '#a3115d' },
  { tag: t.controlKeyword, color: '#d73a49', fontWeight: 'bold' },
  { tag: t.keyword, color: '#d73a49' },
  { tag: t.atom, color: '#005cc5', fontWeight: 'bold' },
  { tag: t.standard(t.function(t.variableName)), color: '#6f42c1' },
  { tag: t.function(t.variableName), color: '#0b5fa5' },
  { tag: t.special(t.variableName), color: '#b35900' },
  { tag: t.operator, color: '#d73a49' },
]);

export const frayHighlighting = syntaxHighlighting(style);
