/**
 * Prints a benchmark's results and appends them, as one dated entry, to the month's history file
 * `bench/history/<YYYY-MM>.md` (under "## Recorded runs"); docs/benchmarks.md keeps only the
 * current-results table, updated by hand from these entries.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeMachine, MachineInfo } from './machine';

export const REPO_ROOT = join(__dirname, '..', '..');
/** BENCH_HISTORY_DIR: set by bench/run.js --at, which runs an exported revision elsewhere. */
const HISTORY_DIR = process.env.BENCH_HISTORY_DIR ?? join(REPO_ROOT, 'bench', 'history');
const RUNS_HEADING = '## Recorded runs';

export interface Table {
  title?: string;
  headers: string[];
  rows: string[][];
  /** Per column; numbers read best right-aligned. Default: first column left, the others right. */
  align?: Array<'left' | 'right'>;
}

export interface Entry {
  title: string;
  command: string;
  machine: MachineInfo;
  settings: string[];
  tables: Table[];
  notes: string[];
}

/** A Markdown table with padded columns, as Prettier would format it. */
export function markdownTable(table: Table): string {
  const columns = table.headers.length;
  const align = table.align ?? table.headers.map((_, i) => (i === 0 ? 'left' : 'right'));
  const cells = [table.headers, ...table.rows].map((row) =>
    Array.from({ length: columns }, (_, i) => (row[i] ?? '').replace(/\|/g, '\\|')),
  );
  const widths = Array.from({ length: columns }, (_, i) => Math.max(3, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, i) => (align[i] === 'right' ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join('\n');
}

export function renderEntry(entry: Entry, when = new Date()): string {
  const stamp = `${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const parts = [
    `### ${stamp}: ${entry.title}`,
    '',
    `- Command: ${entry.command}`,
    `- Machine: ${describeMachine(entry.machine)}`,
    `- Code: commit ${entry.machine.commit}`,
    ...entry.settings.map((s) => `- ${s}`),
  ];
  for (const table of entry.tables) {
    parts.push('');
    if (table.title) parts.push(`${table.title}`, '');
    parts.push(markdownTable(table));
  }
  if (entry.notes.length > 0) {
    parts.push('');
    parts.push(...entry.notes.map((n) => `- ${n}`));
  }
  return parts.join('\n');
}

/** Prints the entry; appends it to the month's history file when `record` is set. */
export function report(entry: Entry, record: boolean): void {
  const when = new Date();
  const text = renderEntry(entry, when);
  process.stdout.write(`\n${text}\n\n`);
  if (!record) {
    process.stdout.write('(--no-record: bench/history left unchanged)\n');
    return;
  }
  const month = when.toISOString().slice(0, 7);
  const file = join(HISTORY_DIR, `${month}.md`);
  mkdirSync(HISTORY_DIR, { recursive: true });
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : `# Benchmark history, ${month}\n`;
  const prefix = doc.includes(`\n${RUNS_HEADING}\n`) ? '' : `\n${RUNS_HEADING}\n`;
  appendFileSync(file, `${existsSync(file) ? '' : doc}${doc.endsWith('\n') ? '' : '\n'}${prefix}\n${text}\n`);
  process.stdout.write(`Appended to bench/history/${month}.md\n`);
}
