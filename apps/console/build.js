#!/usr/bin/env node
// Builds the console into dist/apps/console: one JavaScript bundle and one style sheet, both named
// by their content hash, and index.html that loads them (no inline script or style, so the
// gateway's Content-Security-Policy can forbid both). Fails when the first page's JavaScript is
// over its budget (gzipped). `--watch` rebuilds on change (`nx serve console`).
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');
const esbuild = require('esbuild');

const root = join(__dirname, '..', '..');
const out = join(root, 'dist', 'apps', 'console');
/** docs/console.md#budget: what the first page may load, gzipped. */
const BUDGET_BYTES = 300 * 1024;

const options = {
  entryPoints: { main: join(__dirname, 'src', 'main.tsx') },
  bundle: true,
  format: 'esm',
  target: ['chrome110', 'firefox110', 'safari16'],
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  write: false,
  outdir: out,
  logLevel: 'warning',
  loader: { '.css': 'css' },
};

function hashed(name, ext, contents) {
  return `${name}-${createHash('sha256').update(contents).digest('hex').slice(0, 12)}.${ext}`;
}

function emit(result) {
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error('esbuild produced no script or no style sheet');
  mkdirSync(join(out, 'assets'), { recursive: true });
  // Each file replaced whole (written aside, then renamed over the old one), and an earlier
  // build's files removed only once the new ones are in place: a system serving this directory
  // while it is rebuilt (another test suite's, or `npm start` during `nx serve console`) never
  // answers a half-written file or an index.html naming a missing script.
  const written = new Set();
  const put = (name, contents) => {
    const target = join(out, name);
    writeFileSync(`${target}.${process.pid}.tmp`, contents);
    renameSync(`${target}.${process.pid}.tmp`, target);
    written.add(name);
  };
  const jsName = hashed('main', 'js', js.contents);
  const cssName = hashed('main', 'css', css.contents);
  put(`assets/${jsName}`, js.contents);
  put(`assets/${cssName}`, css.contents);
  put('assets/favicon.svg', readFileSync(join(__dirname, 'src', 'favicon.svg')));
  const html = readFileSync(join(__dirname, 'src', 'index.html'), 'utf8')
    .replace('%SCRIPT%', `/console/assets/${jsName}`)
    .replace('%STYLE%', `/console/assets/${cssName}`);
  put('index.html', html);
  for (const name of readdirSync(join(out, 'assets')))
    if (!written.has(`assets/${name}`) && !name.endsWith('.tmp'))
      rmSync(join(out, 'assets', name), { force: true });
  const gzipped = gzipSync(js.contents, { level: 9 }).length;
  const summary = {
    script: jsName,
    styleSheet: cssName,
    scriptBytes: js.contents.length,
    scriptGzipBytes: gzipped,
  };
  put('build.json', JSON.stringify(summary, null, 2) + '\n');
  console.log(
    `console: ${jsName} ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${BUDGET_BYTES / 1024} KB)`,
  );
  if (gzipped > BUDGET_BYTES)
    throw new Error(`the console's script is ${gzipped} bytes gzipped, over ${BUDGET_BYTES}`);
}

async function main() {
  if (process.argv.includes('--watch')) {
    const context = await esbuild.context({
      ...options,
      plugins: [
        {
          name: 'emit',
          setup(build) {
            build.onEnd((result) => {
              if (result.errors.length === 0) emit(result);
            });
          },
        },
      ],
    });
    await context.watch();
    console.log('console: watching apps/console/src');
    return;
  }
  emit(await esbuild.build(options));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
