#!/usr/bin/env node
// Every `docs/<file>.md` that code cites must exist, and its `#<anchor>` name a heading that exists,
// slugged the way GitHub (and remark-validate-links, which checks every Markdown file's own links
// and anchors: `remark .` in `nx lint docs`) slugs it. Run by `nx lint docs`; prints each broken
// citation and exits 1.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';

const root = join(import.meta.dirname, '..');
const SOURCES = ['apps', 'libs', 'tools', 'tests', 'bench'];
const SKIP = new Set(['node_modules', 'dist', '.data', '.nx', 'coverage', 'tmp']);
const CITATION = /docs\/([\w./-]+\.md)(?:#([\w-]+))?/g;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

/** The anchors of a Markdown file: its headings outside fenced code, as GitHub slugs them. */
function anchorsOf(markdown) {
  const slugger = new GithubSlugger();
  const anchors = new Set();
  let fence = null;
  for (const line of markdown.split('\n')) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (opener && (!fence || opener[1].startsWith(fence))) {
      fence = fence ? null : opener[1];
      continue;
    }
    const heading = !fence && /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    // The heading's text as remark reads it: link text without its target, code without backticks.
    if (heading)
      anchors.add(slugger.slug(heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '')));
  }
  return anchors;
}

const anchorsByDoc = new Map();
const broken = [];
for (const dir of SOURCES) {
  for (const path of files(join(root, dir))) {
    const text = readFileSync(path, 'utf8');
    for (const [citation, doc, anchor] of text.matchAll(CITATION)) {
      if (!anchorsByDoc.has(doc)) {
        const docPath = join(root, 'docs', doc);
        anchorsByDoc.set(doc, existsSync(docPath) ? anchorsOf(readFileSync(docPath, 'utf8')) : new Set());
      }
      if (!existsSync(join(root, 'docs', doc))) broken.push(`no such file: ${relative(root, path)}: ${citation}`);
      else if (anchor && !anchorsByDoc.get(doc).has(anchor))
        broken.push(`no such heading: ${relative(root, path)}: ${citation}`);
    }
  }
}

for (const line of broken) console.error(line);
if (broken.length > 0) process.exit(1);
