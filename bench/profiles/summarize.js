#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (as `node --cpu-prof` writes it): self time by package or
// directory and by function, as shares of the busy time (idle left out).
//
//   node bench/profiles/summarize.js <file.cpuprofile> [top=25] [last-seconds]
//
// last-seconds: only the samples of the profile's last N seconds (e.g. the load phase of
// `bench/ocsp.ts --cpu-prof DIR`, after start-up and issuance).
const { readFileSync } = require('node:fs');

const [file, topArg, lastArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profiles/summarize.js <file.cpuprofile> [top] [last-seconds]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const top = Number(topArg ?? 25);
let elapsed = 0;
const times = profile.timeDeltas.map((delta) => (elapsed += delta));
const from = lastArg ? elapsed - Number(lastArg) * 1e6 : -Infinity;

const selfTime = new Map();
profile.samples.forEach((id, i) => {
  if (times[i] >= from) selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const byPackage = new Map();
const byFunction = new Map();
let busy = 0;
for (const node of profile.nodes) {
  const time = selfTime.get(node.id) ?? 0;
  const { functionName, url, lineNumber } = node.callFrame;
  if (time === 0 || functionName === '(idle)') continue;
  busy += time;
  const where = (url || '(native)')
    .replace(/^.*node_modules\//, 'nm/')
    .replace(/^file:\/\/.*?\/(apps|libs|bench)\//, '$1/');
  const parts = where.split('/');
  const pkg = where.startsWith('nm/')
    ? parts.slice(0, where.startsWith('nm/@') ? 3 : 2).join('/')
    : parts.slice(0, 3).join('/');
  const fn = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + time);
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + time);
}
const show = (title, map) => {
  console.log(title);
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([name, time]) => console.log(`${((100 * time) / busy).toFixed(1).padStart(5)}%  ${name}`));
};
console.log(`busy ${(busy / 1e6).toFixed(1)} s of ${((elapsed - Math.max(0, from)) / 1e6).toFixed(1)} s`);
show('--- self time by package / directory', byPackage);
show('--- self time by function', byFunction);
