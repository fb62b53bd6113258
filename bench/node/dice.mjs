// bench/node/dice.mjs: rolls per second of @dice-roller/rpg-dice-roller,
// for bench/run's dice-roll lines. Install the library first:
//   npm install --prefix bench/node @dice-roller/rpg-dice-roller
// Usage: node bench/node/dice.mjs N [NOTATION]...   (default: d20+5 4d6kh3)
// Prints "EXPR NS_PER_ROLL CHECKSUM" for each notation: the best of 3
// timed runs of N rolls each, after a warm-up run, each roll being
// `new DiceRoll(EXPR).total` (the library's ordinary way to roll; it parses
// the notation every time, as a script with the text in it would).
import { DiceRoll } from '@dice-roller/rpg-dice-roller';

const n = Math.max(1, parseInt(process.argv[2] || '100000', 10));

function time(notation) {
  let best = Infinity;
  let sum = 0;
  for (let run = 0; run < 4; run++) {
    sum = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++)
      sum += new DiceRoll(notation).total;
    const dt = Number(process.hrtime.bigint() - t0) / n;
    if (run > 0 && dt < best) // run 0 warms the JIT up
      best = dt;
  }
  return [best, sum];
}

for (const notation of process.argv.slice(3).length ? process.argv.slice(3) : ['d20+5', '4d6kh3']) {
  const [ns, sum] = time(notation);
  console.log(`${notation} ${ns.toFixed(3)} ${sum}`);
}
