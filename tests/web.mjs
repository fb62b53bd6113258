// tests/web.mjs: the cases of tests/web.test, in headless Chromium through
// puppeteer-core (from web/node_modules):
//
//     node tests/web.mjs SRCDIR INDEX_HTML CHROMIUM EXPECTED_DIR [CASE...]
//
// EXPECTED_DIR holds what the native fray printed for the same commands
// (web.test writes it). Prints PASS: NAME or FAIL: NAME: WHY per case,
// then details of a failure indented; web.test counts them.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [srcdir, index, chromium, expected, ...only] = process.argv.slice(2);
const require = createRequire(join(resolve(srcdir), 'web/package.json'));
const puppeteer = require('puppeteer-core');
const want = (name) => only.length === 0 || only.includes(name);
const url = pathToFileURL(index).href;
const TIMEOUT = Number(process.env.FRAY_TEST_TIMEOUT || 60) * 1000;

function pass(name) {
  console.log(`PASS: ${name}`);
}
function fail(name, why, details) {
  console.log(`FAIL: ${name}: ${why}`);
  if (details) for (const line of String(details).split('\n').slice(0, 60)) console.log(`    | ${line}`);
}
const expect = (name) => readFileSync(join(expected, name), 'utf8');

// what the output shows, a line each, as a terminal would
const terminalText = (page) =>
  page.evaluate(() => [...document.querySelectorAll('#terminal .line')].map((l) => `${l.textContent}\n`).join(''));

// the first line where two texts differ, for the log
function firstDifference(want, got) {
  const a = want.split('\n');
  const b = got.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) return `line ${i + 1}:\n  expected: ${JSON.stringify(a[i])}\n  shown:    ${JSON.stringify(b[i])}`;
  return '';
}

// types a command, runs it, waits for it to end; the result (code, ms)
async function command(page, text) {
  await page.evaluate(() => {
    document.getElementById('status').textContent = '';
  });
  await page.$eval('#command', (el, t) => {
    el.value = t;
  }, text);
  await page.click('#go');
  await page.waitForFunction(() => /^(exit|stopped|cancelled)/.test(document.getElementById('status').textContent), {
    timeout: TIMEOUT,
  });
  return page.evaluate(() => ({ code: window.playground.result.code, ms: window.playground.result.ms }));
}

async function open(browser, hash = '') {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  await page.setViewport({ width: 1400, height: 900 });
  await page.goto(url + hash);
  // the page runs its first command by itself: the worker is up once it ends
  await page.waitForFunction(() => /^(exit|stopped)/.test(document.getElementById('status').textContent), {
    timeout: TIMEOUT,
  });
  return page;
}

async function sameOutput(page, name, text, file) {
  const result = await command(page, text);
  const got = await terminalText(page);
  const wanted = expect(file);
  if (got === wanted && page.errors.length === 0) return result;
  fail(name, `the page does not show what fray ${text} prints`, page.errors.join('\n') || firstDifference(wanted, got));
  return null;
}

const cases = {
  // examples/skirmish.rules, seed 1: the transcript, exactly
  async run(browser) {
    const page = await open(browser);
    if (await sameOutput(page, 'run', 'run --seed 1 examples/skirmish.rules', 'run.out')) pass('run');
  },

  // 2d6: the table as fray prob prints it, and a chart of 11 bars whose
  // heights go 1, 2, ... 6, ... 1 (36ths)
  async prob(browser) {
    const page = await open(browser);
    if (!(await sameOutput(page, 'prob', 'prob 2d6', 'prob.out'))) return;
    const bars = await page.$$eval('#charts rect.bar', (rs) =>
      rs.map((r) => ({ label: r.dataset.label, value: Number(r.dataset.value), height: Number(r.getAttribute('height')) })),
    );
    const ways = [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1];
    const top = Math.max(...bars.map((b) => b.height));
    const right =
      bars.length === 11 &&
      bars.every(
        (b, i) =>
          b.label === String(i + 2) &&
          Math.abs(b.value - ways[i] / 36) < 1e-12 &&
          Math.abs(b.height / top - ways[i] / 6) < 0.01,
      );
    if (right) pass('prob');
    else fail('prob', 'expected 11 bars, 2 to 12, of heights 1:2:3:4:5:6:5:4:3:2:1', JSON.stringify(bars));
  },

  // a simulation: the table as fray sim prints it, and its charts
  async sim(browser) {
    const page = await open(browser);
    const file = 'examples/skirmish.rules';
    if (!(await sameOutput(page, 'sim', `sim -n 200 -j 1 ${file}`, 'sim.out'))) return;
    const titles = await page.$$eval('#charts figcaption', (cs) => cs.map((c) => c.textContent));
    const wins = await page.$$eval('#charts figure:first-child rect.bar', (rs) =>
      rs.map((r) => [r.dataset.label, Number(r.dataset.value)]),
    );
    const total = wins.reduce((s, w) => s + w[1], 0);
    if (titles.length === 4 && titles[0] === 'Who wins' && wins.length >= 2 && Math.abs(total - 1) < 1e-9) pass('sim');
    else fail('sim', 'expected four charts, the first of who wins (shares adding up to 1)', JSON.stringify({ titles, wins }));
  },

  // an error is shown in the editor at its line and column, as fray
  // check locates it
  async diagnostic(browser) {
    const page = await open(browser);
    await page.click('.cm-content');
    await page.keyboard.down('Control');
    await page.keyboard.press('a');
    await page.keyboard.up('Control');
    await page.keyboard.type('stat dex = 0\nstat str = 1\nprint dexx + str\n');
    // marked as it is typed (fray check in the worker, a moment after)
    const live = await page
      .waitForSelector('.cm-lintRange-error', { timeout: TIMEOUT })
      .then(() => true)
      .catch(() => false);
    await command(page, 'check examples/skirmish.rules');
    const shown = await page.evaluate(() => {
      const range = document.querySelector('.cm-lintRange-error');
      if (!range) return null;
      const line = range.closest('.cm-line');
      const lines = [...document.querySelectorAll('.cm-content .cm-line')];
      const markers = [...document.querySelectorAll('.cm-gutter-lint .cm-gutterElement')].filter((g) =>
        g.querySelector('.cm-lint-marker-error'),
      );
      return { line: lines.indexOf(line) + 1, text: range.textContent, markers: markers.length };
    });
    const terminal = await terminalText(page);
    const wanted = expect('check.out');
    if (live && shown && shown.line === 3 && shown.text === 'dexx' && shown.markers === 1 && terminal === wanted)
      pass('diagnostic');
    else
      fail(
        'diagnostic',
        "expected 'dexx' marked on line 3 as it is typed, and by fray check",
        JSON.stringify({ live, shown }) + '\n' + terminal,
      );
  },

  // Share puts the file and the command in the link; the link opens them
  async share(browser) {
    const page = await open(browser);
    const source = 'use legend\n# shared\ncreature a "A" side x { level 1 }\n';
    await page.evaluate((s) => {
      const v = window.playground.view;
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: s } });
    }, source);
    await page.$eval('#command', (el) => {
      el.value = "prob 'd20 + 5 >= 15' 3d6";
    });
    await page.click('#share');
    await page.waitForFunction(() => location.hash.startsWith('#s='), { timeout: TIMEOUT });
    const link = await page.evaluate(() => location.href);
    const again = await open(browser, link.slice(url.length));
    const back = await again.evaluate(() => ({
      file: window.playground.file,
      source: window.playground.source,
      command: window.playground.command,
    }));
    const charts = await again.$$eval('#charts figure', (fs) => fs.length);
    if (back.file === 'examples/skirmish.rules' && back.source === source && back.command === "prob 'd20 + 5 >= 15' 3d6" && charts === 2)
      pass('share');
    else fail('share', 'the link did not bring back the file, the source and the command (and run it)', JSON.stringify({ link, back, charts }));
  },

  // Cancel ends a long simulation for real; the next command runs
  async cancel(browser) {
    const page = await open(browser);
    await page.$eval('#command', (el) => {
      el.value = 'sim -n 1000000 examples/legend-skirmish.rules';
    });
    await page.click('#go');
    await page.waitForFunction(() => !document.getElementById('progress').hidden, { timeout: TIMEOUT });
    await page.click('#cancel');
    await page.waitForFunction(() => document.getElementById('status').textContent === 'cancelled', { timeout: TIMEOUT });
    const start = Date.now();
    const result = await command(page, 'prob d6');
    const quick = Date.now() - start < 20000;
    if (result.code === 0 && quick && (await terminalText(page)).includes('mean 3.5')) pass('cancel');
    else fail('cancel', 'after Cancel, prob d6 did not run at once', JSON.stringify(result));
  },

  // the summary of two systems, as fray diff --brief prints it
  async diff(browser) {
    const page = await open(browser);
    if (await sameOutput(page, 'diff', 'diff --brief legend shock', 'diff.out')) pass('diff');
  },
};

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  // as root (CI), Chromium's sandbox cannot start
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  for (const [name, run] of Object.entries(cases)) {
    if (!want(name)) continue;
    try {
      await run(browser);
    } catch (e) {
      fail(name, e.message, e.stack);
    }
  }
} finally {
  await browser.close();
}
