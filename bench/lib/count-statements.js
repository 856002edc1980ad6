// Preloaded into the system's process (`node -r bench/lib/count-statements.js`) by benchmarks that
// count database statements per request: every `pg` Client.query (the services' statements, on
// Postgres and on the embedded database's wire server alike) is counted by its text's first 80
// characters, and the counts are written as JSON to BENCH_STATEMENTS_FILE every 100 ms.
const { writeFileSync } = require('node:fs');
const file = process.env.BENCH_STATEMENTS_FILE;
if (file) {
  const { Client } = require('pg');
  const counts = {};
  let changed = true;
  const query = Client.prototype.query;
  Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : (config && config.text) || '(prepared)';
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 80);
    counts[key] = (counts[key] || 0) + 1;
    changed = true;
    return query.call(this, config, ...rest);
  };
  setInterval(() => {
    if (!changed) return;
    changed = false;
    writeFileSync(file, JSON.stringify(counts));
  }, 100).unref();
}
