// fray-worker.js: the page's end of the worker (worker.js): one command
// at a time, and a cancel that really stops one, by ending the worker and
// starting another.
import workerSource from 'fray:worker';

export class FrayWorker {
  constructor(files, onProgress) {
    this.files = files;
    this.onProgress = onProgress;
    this.next = 0;
    this.pending = new Map();
    this.start();
  }

  start() {
    // from a Blob: a worker's script cannot be a file:// address
    this.url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
    this.worker = new Worker(this.url);
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    this.worker.onmessage = (e) => this.message(e.data);
    this.worker.onerror = (e) => this.fail(`the worker stopped: ${e.message || 'an error'}`);
    this.worker.postMessage({ type: 'init', files: this.files });
  }

  get busy() {
    return this.pending.size > 0;
  }

  message(m) {
    if (m.type === 'ready') {
      this.resolveReady();
    } else if (m.type === 'progress') {
      this.onProgress(m.done, m.runs);
    } else if (m.type === 'done' || m.type === 'crashed') {
      const resolve = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.type === 'crashed') this.restart();
      resolve?.({ ...m, crashed: m.type === 'crashed' });
    }
  }

  fail(message) {
    for (const resolve of this.pending.values()) resolve({ crashed: true, message, lines: [], events: [] });
    this.pending.clear();
    this.restart();
  }

  restart() {
    this.worker.terminate();
    URL.revokeObjectURL(this.url);
    this.start();
  }

  // `fray ARGV...` after writing files: {code, ms, lines, events}, or
  // {cancelled: true}
  async run(argv, files) {
    const id = ++this.next;
    const done = new Promise((resolve) => this.pending.set(id, resolve));
    await this.ready;
    this.worker.postMessage({ type: 'command', id, argv, files });
    return done;
  }

  cancel() {
    for (const resolve of this.pending.values()) resolve({ cancelled: true });
    this.pending.clear();
    this.restart();
  }
}
