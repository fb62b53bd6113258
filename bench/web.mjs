// bench/web.mjs: the times of `fray sim` in the playground (web/dist/), in
// headless Chromium: the least of K runs of each command (after a first
// run of each, untimed), as the worker times it (callMain, from the command's start to its end; the page's
// start and the WebAssembly's compilation left out, as a process's start
// is nearly nothing natively).
//
//     node bench/web.mjs SRCDIR INDEX_HTML CHROMIUM K COMMAND...
//
// Prints "MS COMMAND" a line each.
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [srcdir, index, chromium, k, ...commands] = process.argv.slice(2);
const require = createRequire(join(resolve(srcdir), 'web/package.json'));
const puppeteer = require('puppeteer-core');
const ended = () => /^(exit|stopped)/.test(document.getElementById('status').textContent);
const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage();
  await page.goto(pathToFileURL(index).href);
  await page.waitForFunction(ended, { timeout: 120000 });
  // once each first, untimed: the engine compiles the hot functions
  // again, optimized, in the background, a while after they first run
  for (const command of commands) await run(page, command);
  for (const command of commands) {
    let best = Infinity;
    for (let i = 0; i < Number(k); i++) best = Math.min(best, await run(page, command));
    console.log(`${best.toFixed(1)} ${command}`);
  }
} finally {
  await browser.close();
}

// runs a command in the page: the time the worker took
async function run(page, command) {
  await page.evaluate(() => {
    document.getElementById('status').textContent = '';
  });
  await page.$eval('#command', (el, t) => {
    el.value = t;
  }, command);
  await page.click('#go');
  await page.waitForFunction(ended, { timeout: 600000 });
  const r = await page.evaluate(() => window.playground.result);
  if (r.code !== 0) throw new Error(`${command}: exit ${r.code}`);
  return r.ms;
}
