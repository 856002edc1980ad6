// Preloaded into the system's process (`node -r bench/lib/count-statements.js`) by benchmarks that
// count database statements per request: every `pg` Client.query (the services' statements, on
// Postgres and on the embedded database's wire server alike) is counted by its text's first 80
// characters. On SIGUSR2 the counts are written as JSON to BENCH_STATEMENTS_FILE (aside, then
// renamed: a reader never sees half a file); nothing is written otherwise, so the counting costs
// the process next to nothing.
const { renameSync, writeFileSync } = require('node:fs');
const file = process.env.BENCH_STATEMENTS_FILE;
if (file) {
  const { Client } = require('pg');
  const counts = {};
  const query = Client.prototype.query;
  Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : (config && config.text) || '(prepared)';
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 80);
    counts[key] = (counts[key] || 0) + 1;
    return query.call(this, config, ...rest);
  };
  process.on('SIGUSR2', () => {
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  });
}
