import {
  AuditChainState,
  AuditEntry,
  AuditEntryInput,
  GENESIS_HASH,
  auditEntryHash,
  canonicalJson,
  sealAuditEntries,
  verifyAuditChain,
} from './audit-chain';

const TENANT = '6f1c2f4e-8a43-4c4f-9f0e-2f7b8b1d9a10';

function input(n: number, overrides: Partial<AuditEntryInput> = {}): AuditEntryInput {
  return {
    occurredAt: new Date(Date.UTC(2025, 0, 1, 12, 0, n)),
    tenantId: TENANT,
    principal: 'backend-service',
    action: 'certificate.issue',
    resource: '/v1/certificates',
    result: 200,
    code: null,
    requestId: `req-${n}`,
    ...overrides,
  };
}

/** A chain of `count` entries from the genesis, with its state. */
function chain(count: number): { entries: AuditEntry[]; state: AuditChainState } {
  const entries = sealAuditEntries(
    { id: 0, hash: GENESIS_HASH },
    Array.from({ length: count }, (_, i) => input(i + 1)),
  );
  const last = entries[entries.length - 1];
  return {
    entries,
    state: {
      anchorId: 0,
      anchorHash: GENESIS_HASH,
      headId: last?.id ?? 0,
      headHash: last?.hash ?? GENESIS_HASH,
    },
  };
}

describe('the audit hash chain', () => {
  it('numbers entries without gaps and links each to the hash of the one before', () => {
    const { entries } = chain(3);
    expect(entries.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(entries[0].prevHash).toBe(GENESIS_HASH);
    expect(entries[1].prevHash).toBe(entries[0].hash);
    expect(entries[2].prevHash).toBe(entries[1].hash);
    for (const entry of entries) expect(entry.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('continues after an existing head', () => {
    const { entries } = chain(2);
    const [next] = sealAuditEntries({ id: 2, hash: entries[1].hash }, [input(3)]);
    expect(next).toMatchObject({ id: 3, prevHash: entries[1].hash });
  });

  it('hashes a canonical JSON: sorted keys, no whitespace, null kept', () => {
    expect(canonicalJson({ b: 1, a: 'x', c: null })).toBe('{"a":"x","b":1,"c":null}');
    const [entry] = chain(1).entries;
    const reordered = { ...entry, requestId: entry.requestId };
    expect(auditEntryHash(reordered)).toBe(entry.hash);
  });

  it('covers every field: changing any one changes the hash', () => {
    const [entry] = chain(1).entries;
    const changes: Partial<AuditEntry>[] = [
      { id: 2 },
      { occurredAt: new Date(entry.occurredAt.getTime() + 1) },
      { tenantId: null },
      { principal: 'someone-else' },
      { action: 'certificate.revoke' },
      { resource: '/v1/certificates/x' },
      { result: 500 },
      { code: 'FORBIDDEN' },
      { requestId: 'other' },
      { prevHash: '1'.repeat(64) },
    ];
    for (const change of changes) expect(auditEntryHash({ ...entry, ...change })).not.toBe(entry.hash);
  });

  describe('verification', () => {
    it('passes an intact chain and counts it', () => {
      const { entries, state } = chain(5);
      expect(verifyAuditChain(state, entries)).toEqual({ ok: true, entries: 5, firstId: 1, lastId: 5 });
    });

    it('passes an empty log', () => {
      const { entries, state } = chain(0);
      expect(verifyAuditChain(state, entries)).toEqual({ ok: true, entries: 0 });
    });

    it('names an edited entry', () => {
      const { entries, state } = chain(5);
      entries[2] = { ...entries[2], result: 403 };
      expect(verifyAuditChain(state, entries)).toMatchObject({
        ok: false,
        entryId: 3,
        problem: expect.stringMatching(/entry 3 was changed/),
      });
    });

    it('names the next entry when an edited entry had its hash recomputed', () => {
      const { entries, state } = chain(5);
      const forged = { ...entries[1], principal: 'intruder' };
      entries[1] = { ...forged, hash: auditEntryHash(forged) };
      expect(verifyAuditChain(state, entries)).toMatchObject({
        ok: false,
        entryId: 3,
        problem: expect.stringMatching(/does not link to entry 2/),
      });
    });

    it('names a removed middle entry', () => {
      const { entries, state } = chain(5);
      entries.splice(2, 1);
      expect(verifyAuditChain(state, entries)).toMatchObject({
        ok: false,
        entryId: 3,
        problem: expect.stringMatching(/entry 3 is missing/),
      });
    });

    it('names a removed run of entries', () => {
      const { entries, state } = chain(6);
      entries.splice(1, 3);
      expect(verifyAuditChain(state, entries)).toMatchObject({
        ok: false,
        entryId: 2,
        problem: expect.stringMatching(/entries 2 to 4 are missing/),
      });
    });

    it('names a removed first entry', () => {
      const { entries, state } = chain(3);
      entries.shift();
      expect(verifyAuditChain(state, entries)).toMatchObject({ ok: false, entryId: 1 });
    });

    it('names removed last entries, by the recorded head', () => {
      const { entries, state } = chain(5);
      entries.splice(3);
      expect(verifyAuditChain(state, entries)).toMatchObject({
        ok: false,
        entryId: 4,
        problem: expect.stringMatching(/entries 4 to 5, the last ones written, are missing/),
      });
    });

    it('names a last entry whose contents and hash were both replaced', () => {
      const { entries, state } = chain(3);
      const forged = { ...entries[2], result: 200, code: null, action: 'certificate.list' };
      entries[2] = { ...forged, hash: auditEntryHash(forged) };
      expect(verifyAuditChain(state, entries)).toMatchObject({
        ok: false,
        entryId: 3,
        problem: expect.stringMatching(/differs from the recorded head/),
      });
    });

    it('names entries out of order', () => {
      const { entries, state } = chain(3);
      [entries[1], entries[2]] = [entries[2], entries[1]];
      expect(verifyAuditChain(state, entries)).toMatchObject({ ok: false, entryId: 2 });
    });
  });

  describe('after pruning', () => {
    /** What the pruning job does: drop the oldest entries, anchor on the last one dropped. */
    function prune(entries: AuditEntry[], state: AuditChainState, count: number) {
      const removed = entries.slice(0, count);
      const last = removed[removed.length - 1];
      return {
        entries: entries.slice(count),
        state: { ...state, anchorId: last.id, anchorHash: last.hash },
      };
    }

    it('verifies from the first remaining entry', () => {
      const full = chain(10);
      const pruned = prune(full.entries, full.state, 4);
      expect(verifyAuditChain(pruned.state, pruned.entries)).toEqual({
        ok: true,
        entries: 6,
        firstId: 5,
        lastId: 10,
      });
    });

    it('verifies a log pruned down to nothing', () => {
      const full = chain(3);
      const pruned = prune(full.entries, full.state, 3);
      expect(verifyAuditChain(pruned.state, pruned.entries)).toEqual({ ok: true, entries: 0 });
    });

    it('still finds a removed entry after the anchor', () => {
      const full = chain(10);
      const pruned = prune(full.entries, full.state, 4);
      pruned.entries.splice(0, 1);
      expect(verifyAuditChain(pruned.state, pruned.entries)).toMatchObject({ ok: false, entryId: 5 });
    });

    it('does not accept entries removed without moving the anchor', () => {
      const full = chain(10);
      expect(verifyAuditChain(full.state, full.entries.slice(4))).toMatchObject({ ok: false, entryId: 1 });
    });

    it('refuses a chain whose anchor hash does not match the first remaining entry', () => {
      const full = chain(10);
      const pruned = prune(full.entries, full.state, 4);
      const wrongAnchor = { ...pruned.state, anchorHash: '2'.repeat(64) };
      expect(verifyAuditChain(wrongAnchor, pruned.entries)).toMatchObject({
        ok: false,
        entryId: 5,
        problem: expect.stringMatching(/anchor/),
      });
    });
  });

  it('hashes the text the database stores, so an entry read back verifies (odd but valid and invalid text)', () => {
    // What PostgreSQL `text` keeps of a JS string: its UTF-8 (a lone surrogate becomes U+FFFD).
    const stored = (text: string | null) =>
      text === null ? null : Buffer.from(text, 'utf8').toString('utf8');
    const principals = ['ops 🔐 認証 שלום', `${'a'.repeat(255)}\ud83d`, 'x\udc00y', 'a\u0000b'];
    const entries = sealAuditEntries(
      { id: 0, hash: GENESIS_HASH },
      principals.map((principal, i) => input(i + 1, { principal })),
    );
    expect(entries.every((e) => !e.principal!.includes('\u0000'))).toBe(true);
    const readBack = entries.map((e) => ({ ...e, principal: stored(e.principal) }));
    const last = entries[entries.length - 1];
    expect(
      verifyAuditChain(
        { anchorId: 0, anchorHash: GENESIS_HASH, headId: last.id, headHash: last.hash },
        readBack,
      ),
    ).toMatchObject({ ok: true, entries: 4 });
    expect(readBack[0].principal).toBe('ops 🔐 認証 שלום');
  });

  it('hashes occurrences of an aggregate entry, and leaves the hash of a single-call entry as before', () => {
    const [single] = sealAuditEntries({ id: 0, hash: GENESIS_HASH }, [input(1)]);
    const [same] = sealAuditEntries({ id: 0, hash: GENESIS_HASH }, [input(1, { occurrences: null })]);
    const [aggregate] = sealAuditEntries({ id: 0, hash: GENESIS_HASH }, [input(1, { occurrences: 499 })]);
    expect(same.hash).toBe(single.hash);
    expect(aggregate.hash).not.toBe(single.hash);
    expect(auditEntryHash({ ...aggregate, occurrences: 500 })).not.toBe(aggregate.hash);
  });
});
