// bundle.mjs: web/src/ into web/dist/ with esbuild (web/build.sh runs it
// after emcc):
//
//     node web/bundle.mjs SRCDIR BUILD DIST
//
// BUILD holds what web/build.sh made: fray-wasm.js (the module, its wasm
// inside), vocabulary.txt (KIND WORD lines) and files.txt (the rules files
// to bundle, relative to SRCDIR). The worker is bundled first, into a
// text the page starts it from (a Blob URL: a worker cannot be started
// from a file:// address); the page takes it, the vocabulary and the
// files as modules of their own (fray:worker, fray:vocabulary,
// fray:files). Everything is one classic script, playground.js, and its
// stylesheet: a module script would not load from disk either.
import { readFileSync, writeFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const [srcdir, build, dist] = process.argv.slice(2).map((p) => resolve(p));
if (!dist) {
  console.error('usage: node web/bundle.mjs SRCDIR BUILD DIST');
  process.exit(2);
}
const web = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(web, 'package.json'));
const esbuild = require('esbuild');

// The words of the language by kind; each word of `fray help --forms` must
// be one of them, or the editor would not show it.
function vocabulary() {
  const kinds = {};
  const forms = [];
  for (const line of readFileSync(join(build, 'vocabulary.txt'), 'utf8').split('\n')) {
    const [kind, word] = line.split(' ');
    if (!word) continue;
    if (kind === 'forms') forms.push(word);
    else (kinds[kind] ||= []).push(word);
  }
  for (const k of ['keywords', 'declarations', 'clauses', 'commands', 'functions', 'events'])
    if (!kinds[k] || kinds[k].length < 5) throw new Error(`web: the vocabulary has no ${k} (fray help changed?)`);
  const known = new Set(Object.values(kinds).flat());
  const missing = [...new Set(forms.filter((w) => !known.has(w)))];
  if (missing.length) throw new Error(`web: words of 'fray help --forms' of no kind of 'fray help': ${missing.join(' ')}`);
  return kinds;
}

function files() {
  const out = {};
  for (const path of readFileSync(join(build, 'files.txt'), 'utf8').split('\n').filter(Boolean))
    out[path] = readFileSync(join(srcdir, path), 'utf8');
  return out;
}

// fray:NAME modules, and fray-wasm (the module emcc made)
function frayModules(values) {
  return {
    name: 'fray',
    setup(b) {
      b.onResolve({ filter: /^fray-wasm$/ }, () => ({ path: join(build, 'fray-wasm.js') }));
      b.onResolve({ filter: /^fray:/ }, (a) => ({ path: a.path.slice(5), namespace: 'fray' }));
      b.onLoad({ filter: /.*/, namespace: 'fray' }, (a) => {
        if (!(a.path in values)) return { errors: [{ text: `no module fray:${a.path}` }] };
        return { contents: `export default ${JSON.stringify(values[a.path])};`, loader: 'js' };
      });
    },
  };
}

const common = {
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['chrome103', 'firefox113', 'safari16.4'],
  nodePaths: [join(web, 'node_modules')],
  logLevel: 'warning',
  legalComments: 'none',
};

// emscripten's module also runs under node, in code the browser never
// reaches: its node modules stay out
const worker = await esbuild.build({
  ...common,
  entryPoints: [join(srcdir, 'web/src/worker.js')],
  external: ['fs', 'path', 'crypto', 'ws', 'perf_hooks', 'worker_threads'],
  plugins: [frayModules({})],
  write: false,
});

mkdirSync(dist, { recursive: true });
await esbuild.build({
  ...common,
  entryPoints: { playground: join(srcdir, 'web/src/main.js') },
  outdir: dist,
  plugins: [frayModules({ worker: worker.outputFiles[0].text, vocabulary: vocabulary(), files: files() })],
});
copyFileSync(join(srcdir, 'web/src/index.html'), join(dist, 'index.html'));
