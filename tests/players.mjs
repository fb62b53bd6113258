// tests/players.mjs: the players' view of `fray repl --serve` in headless
// Chromium through puppeteer-core (from web/node_modules), for
// tests/serve.test:
//
//     node tests/players.mjs SRCDIR URL FIFO CHROMIUM
//
// The REPL reads its commands from FIFO. With the page open, it sends
// `next` there and measures how long the page takes to show the new turn;
// it watches every byte the page is sent, and its DOM, for the hidden
// stalker. Prints PASS: or FAIL: lines, as the shell tests do.
import { createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [srcdir, url, fifo, chromium] = process.argv.slice(2);
const require = createRequire(join(resolve(srcdir), 'web/package.json'));
const puppeteer = require('puppeteer-core');

const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
let failed = false;
const fail = (name, why) => {
  failed = true;
  console.log(`FAIL: ${name}: ${why}`);
};
try {
  const page = await browser.newPage();
  // every byte the page receives, the event stream's included
  const cdp = await page.createCDPSession();
  await cdp.send('Network.enable');
  let received = '';
  cdp.on('Network.eventSourceMessageReceived', (e) => (received += e.data));
  page.on('response', async (r) => {
    try {
      received += await r.text();
    } catch {
      /* a stream has no whole body */
    }
  });
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#status.live', { timeout: 10000 });
  const heading = () => page.$eval('#heading', (h) => h.textContent);
  const before = await heading();
  const started = Date.now();
  appendFileSync(fifo, 'next\n');
  try {
    await page.waitForFunction((b) => document.querySelector('#heading').textContent !== b, { timeout: 1000 }, before);
    const took = Date.now() - started;
    console.log(`PASS: browser-live (the turn shown ${took} ms after next: ${await heading()})`);
  } catch {
    fail('browser-live', `after next, the page still showed "${before}" a second later`);
  }
  appendFileSync(fifo, 'next\nnext\n');
  await new Promise((r) => setTimeout(r, 500));
  const dom = await page.content();
  if (/stalker/i.test(dom) || /stalker/i.test(received)) fail('browser-hidden', 'the stalker is in the page or in what it was sent');
  else if (!received.includes('"turn"')) fail('browser-hidden', 'the page was sent no view');
  else console.log('PASS: browser-hidden');
} catch (e) {
  fail('browser', String(e));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
