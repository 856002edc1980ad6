/**
 * The soak's storage tables and verdict (bench/soak.ts): per window, what the system keeps, and
 * whether the tables that only hold transient rows stay flat while certificates grow with issues.
 */
import { StorageSample, tableKind } from './storage';
import { int } from './stats';

export interface WindowSample {
  /** Minutes since the load started. */
  atMinutes: number;
  /** Certificates issued (answered 200) and revoked so far. */
  issued: number;
  revoked: number;
  storage: StorageSample;
}

/** A value may end this much above its reference and still count as flat (noise, a window's jitter). */
const FLAT_FACTOR = 1.25;
const ROW_SLACK = 50;
/** Postgres and JetStream allocate in pages and blocks: a few of them are no growth. */
const BYTE_SLACK = 256 * 1024;

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

function sum(sample: StorageSample, kind: string, field: 'rows' | 'bytes'): number {
  return Object.entries(sample.tables)
    .filter(([name]) => tableKind(name) === kind)
    .reduce((total, [, size]) => total + size[field], 0);
}

/** One row per window: totals by kind of table, and the event streams on NATS. */
export function windowTable(
  samples: WindowSample[],
  withStreams: boolean,
): { headers: string[]; rows: string[][] } {
  const headers = [
    'window',
    'at (min)',
    'issued',
    'transient rows',
    'transient bytes',
    'certificate rows',
    'certificate bytes',
    'tenant bytes',
    ...(withStreams ? ['CA_EVENTS msgs', 'CA_EVENTS bytes', 'blobs stream bytes'] : []),
  ];
  const rows = samples.map((s, i) => [
    String(i),
    s.atMinutes.toFixed(1),
    int(s.issued),
    int(sum(s.storage, 'transient', 'rows')),
    kib(sum(s.storage, 'transient', 'bytes')),
    int(sum(s.storage, 'per-certificate', 'rows')),
    kib(sum(s.storage, 'per-certificate', 'bytes')),
    kib(sum(s.storage, 'per-tenant', 'bytes')),
    ...(withStreams
      ? [
          int(s.storage.streams.CA_EVENTS?.messages ?? 0),
          kib(s.storage.streams.CA_EVENTS?.bytes ?? 0),
          kib(s.storage.streams.CA_EVENTS_BLOBS?.bytes ?? 0),
        ]
      : []),
  ]);
  return { headers, rows };
}

/** Every table that held anything: rows / bytes at the end of each window. */
export function perTableTable(samples: WindowSample[]): {
  headers: string[];
  rows: string[][];
  empty: string[];
} {
  const names = Object.keys(samples.at(-1)?.storage.tables ?? {});
  const held = names.filter((name) => samples.some((s) => (s.storage.tables[name]?.rows ?? 0) > 0));
  const streams = Object.keys(samples.at(-1)?.storage.streams ?? {});
  const cell = (size?: { rows?: number; messages?: number; bytes: number }) =>
    size ? `${int(size.rows ?? size.messages ?? 0)} / ${kib(size.bytes)}` : '–';
  return {
    headers: ['table', 'kind', ...samples.map((_, i) => `window ${i}`)],
    rows: [
      ...held.map((name) => [
        `\`${name}\``,
        tableKind(name),
        ...samples.map((s) => cell(s.storage.tables[name])),
      ]),
      ...streams.map((name) => [
        `stream ${name}`,
        'transient',
        ...samples.map((s) => cell(s.storage.streams[name])),
      ]),
    ],
    empty: names.filter((name) => !held.includes(name)),
  };
}

export interface StorageVerdict {
  ok: boolean;
  text: string;
  bytesPerCertificate: string;
}

/**
 * Transient tables and streams must be flat from the end of the first window on: at the last
 * window within FLAT_FACTOR (plus a little slack) of the most they held at the end of windows 1
 * and 2. A table that grows with time ends near (windows)/2 times its window-2 size and fails.
 */
export function storageVerdict(samples: WindowSample[]): StorageVerdict {
  if (samples.length < 4)
    return {
      ok: false,
      text: `too short: ${samples.length - 1} window(s), the verdict needs at least 3`,
      bytesPerCertificate: 'n/a',
    };
  const last = samples.at(-1)!;
  const reference = samples.slice(1, 3);
  const growing: string[] = [];
  const check = (
    label: string,
    value: (s: WindowSample) => number,
    slack: number,
    unit: (n: number) => string,
  ) => {
    const ref = Math.max(...reference.map(value));
    const end = value(last);
    if (end > ref * FLAT_FACTOR + slack) growing.push(`${label} ${unit(ref)} → ${unit(end)}`);
  };
  for (const name of Object.keys(last.storage.tables).filter((n) => tableKind(n) === 'transient')) {
    check(`${name} rows`, (s) => s.storage.tables[name]?.rows ?? 0, ROW_SLACK, int);
    check(`${name} bytes`, (s) => s.storage.tables[name]?.bytes ?? 0, BYTE_SLACK, kib);
  }
  for (const name of Object.keys(last.storage.streams)) {
    check(`stream ${name} messages`, (s) => s.storage.streams[name]?.messages ?? 0, ROW_SLACK, int);
    check(`stream ${name} bytes`, (s) => s.storage.streams[name]?.bytes ?? 0, BYTE_SLACK, kib);
  }

  // Bytes per certificate: what the per-certificate tables gained from window 1 to the end, per issue.
  const first = samples[1];
  const issued = last.issued - first.issued;
  const perTable = Object.keys(last.storage.tables)
    .filter((n) => tableKind(n) === 'per-certificate')
    .map((name) => ({
      name,
      bytes: (last.storage.tables[name]?.bytes ?? 0) - (first.storage.tables[name]?.bytes ?? 0),
    }));
  const total = perTable.reduce((s, t) => s + t.bytes, 0);
  const bytesPerCertificate =
    issued > 0
      ? `${int(total / issued)} bytes per issued certificate (${perTable.map((t) => `\`${t.name}\` ${int(t.bytes / issued)}`).join(', ')}; ${int(issued)} issues, ${int(last.revoked - first.revoked)} revocations from window 1 to ${samples.length - 1})`
      : 'n/a (no issues)';
  const certificates = last.storage.tables['issuance.certificates']?.rows ?? 0;
  const linear = `\`issuance.certificates\` holds ${int(certificates)} rows for ${int(last.issued)} issues answered`;
  return growing.length === 0
    ? {
        ok: true,
        text: `transient tables${Object.keys(last.storage.streams).length ? ' and streams' : ''} flat from window 1 to ${samples.length - 1} (within ×${FLAT_FACTOR} of windows 1–2); ${linear}`,
        bytesPerCertificate,
      }
    : { ok: false, text: `GROWING: ${growing.join('; ')}; ${linear}`, bytesPerCertificate };
}
