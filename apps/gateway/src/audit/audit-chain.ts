import { createHash } from 'node:crypto';
import { storableText } from '../text/text-rules';

/** The prev_hash of the very first entry, and the anchor before anything was pruned. */
export const GENESIS_HASH = '0'.repeat(64);

/** What is recorded about one administrative call (docs/api.md#audit-log). Never bodies, tokens or keys. */
export interface AuditEntryInput {
  occurredAt: Date;
  /** The token's tenant; null when the caller was not authenticated. */
  tenantId: string | null;
  /** The token's `sub`; null when the caller was not authenticated. */
  principal: string | null;
  /** `certificate.issue`, `ca.initialize`, … (see audit-action.ts). */
  action: string;
  /** The request path, without the query string. */
  resource: string;
  /** The HTTP status answered. */
  result: number;
  /** The problem `code` of an error answer; null on success. */
  code: string | null;
  requestId: string;
  /**
   * How many calls the entry stands for when it aggregates several (failed authentications of one
   * source address in one minute); absent for an entry of one call.
   */
  occurrences?: number | null;
}

/**
 * An entry as stored, linked to the previous entry of its chain by its hash. Entries written
 * before the chains were split per tenant form the legacy chain, numbered by `id` without gaps;
 * later ones carry `chainSeq`, their position (without gaps) in their tenant's chain, or in the
 * chain of entries without a tenant (docs/architecture.md#audit-chain).
 */
export interface AuditEntry extends AuditEntryInput {
  id: number;
  chainSeq?: number;
  prevHash: string;
  hash: string;
}

/** The chain's ends: what the first remaining entry links to, and the last entry written. */
export interface AuditChainState {
  /** Id of the last pruned entry (0 before any pruning); the first remaining entry is anchorId + 1. */
  anchorId: number;
  /** Hash of that entry (GENESIS_HASH before any pruning): the prev_hash of the first remaining one. */
  anchorHash: string;
  headId: number;
  headHash: string;
}

export type AuditVerification =
  | { ok: true; entries: number; firstId?: number; lastId?: number }
  | {
      ok: false;
      entries: number;
      /** The entry found broken; for a per-tenant chain's missing entries, the last intact one (0 if none). */
      entryId: number;
      problem: string;
    };

type CanonicalValue = string | number | null;

/** JSON with the keys sorted and no whitespace: one byte string per entry, whatever wrote it. */
export function canonicalJson(value: Record<string, CanonicalValue>): string {
  const members = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(value[key])}`);
  return `{${members.join(',')}}`;
}

/**
 * SHA-256 (hex) over the UTF-8 bytes of the canonical JSON of every field of the entry, prevHash
 * included. The text fields are those the database stores (storableAuditEntry), so the hash
 * covers exactly what is kept. `occurrences` and `chainSeq` are part of it only when set, which
 * keeps the hashes of entries written before they existed.
 */
export function auditEntryHash(entry: Omit<AuditEntry, 'hash'>): string {
  const occurrences = entry.occurrences ?? null;
  const chainSeq = entry.chainSeq ?? null;
  const canonical = canonicalJson({
    ...(occurrences === null ? {} : { occurrences }),
    ...(chainSeq === null ? {} : { chainSeq }),
    id: entry.id,
    occurredAt: entry.occurredAt.toISOString(),
    tenantId: entry.tenantId,
    principal: entry.principal,
    action: entry.action,
    resource: entry.resource,
    result: entry.result,
    code: entry.code,
    requestId: entry.requestId,
    prevHash: entry.prevHash,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/** The entry with every text field as PostgreSQL `text` keeps it (no NUL, no unpaired surrogate). */
export function storableAuditEntry(input: AuditEntryInput): AuditEntryInput {
  const text = (value: string | null) => (value === null ? null : storableText(value));
  return {
    ...input,
    principal: text(input.principal),
    action: storableText(input.action),
    resource: storableText(input.resource),
    code: text(input.code),
    requestId: storableText(input.requestId),
  };
}

/** Numbers and links new entries after the current head. */
export function sealAuditEntries(
  head: { id: number; hash: string },
  inputs: AuditEntryInput[],
): AuditEntry[] {
  let id = head.id;
  let prevHash = head.hash;
  return inputs.map((input) => {
    id += 1;
    const unsealed = { ...storableAuditEntry(input), id, prevHash };
    const entry = { ...unsealed, hash: auditEntryHash(unsealed) };
    prevHash = entry.hash;
    return entry;
  });
}

/**
 * Numbers and links new entries after the head of their chain: `ids` are their (already
 * allocated) global ids, `head.id` the position of the chain's last entry.
 */
export function sealChainEntries(
  head: { id: number; hash: string },
  ids: readonly number[],
  inputs: readonly AuditEntryInput[],
): AuditEntry[] {
  let chainSeq = head.id;
  let prevHash = head.hash;
  return inputs.map((input, i) => {
    chainSeq += 1;
    const unsealed = { ...storableAuditEntry(input), id: ids[i], chainSeq, prevHash };
    const entry = { ...unsealed, hash: auditEntryHash(unsealed) };
    prevHash = entry.hash;
    return entry;
  });
}

/**
 * Checks entries in id order, one at a time (the log may be larger than memory): the first has
 * id anchorId + 1 and links to anchorHash, each next id is one more and links to the previous
 * hash, every hash matches its entry's contents, and the last is the recorded head. The first
 * failure names the entry.
 */
export class AuditChainVerifier {
  private expectedId: number;
  private expectedPrevHash: string;
  private count = 0;
  private firstId?: number;
  private failure?: { entryId: number; problem: string };

  /** Id of the last entry that passed (per-tenant chains name missing entries by it). */
  private lastGoodId = 0;

  /**
   * `chain` names a per-tenant chain (positions are `chainSeq`, and `state` holds positions);
   * without it, the legacy chain numbered by id.
   */
  constructor(
    private readonly state: AuditChainState,
    private readonly chain?: string,
  ) {
    this.expectedId = state.anchorId + 1;
    this.expectedPrevHash = state.anchorHash;
  }

  /** Feeds the next entry; false once a failure was found (later entries are not looked at). */
  add(entry: AuditEntry): boolean {
    if (this.failure) return false;
    if (this.chain !== undefined) {
      const named = this.addAt(entry.chainSeq ?? 0, entry);
      if (!named && this.failure) this.nameChainFailure(entry);
      return named;
    }
    return this.addAt(entry.id, entry);
  }

  /** A per-tenant chain's failure names the entry by id and says which chain and position. */
  private nameChainFailure(entry: AuditEntry): void {
    const failure = this.failure!;
    const missing = /missing/.test(failure.problem);
    failure.problem = `${this.chain}: ${failure.problem}`;
    failure.entryId = missing ? this.lastGoodId : entry.id;
  }

  private addAt(id: number, entry: AuditEntry): boolean {
    if (id !== this.expectedId) {
      this.failure =
        id > this.expectedId
          ? {
              entryId: this.expectedId,
              problem:
                id === this.expectedId + 1
                  ? `entry ${this.expectedId} is missing (removed); the log continues at ${id}`
                  : `entries ${this.expectedId} to ${id - 1} are missing (removed); the log continues at ${id}`,
            }
          : { entryId: id, problem: `entry ${id} is out of order (expected ${this.expectedId})` };
      return false;
    }
    if (entry.prevHash !== this.expectedPrevHash) {
      this.failure = {
        entryId: id,
        problem:
          id === this.state.anchorId + 1
            ? `entry ${id} does not link to the chain's anchor (prev_hash differs)`
            : `entry ${id} does not link to entry ${id - 1} (prev_hash differs: entry ${id - 1} or ${id} was changed)`,
      };
      return false;
    }
    if (auditEntryHash(entry) !== entry.hash) {
      this.failure = {
        entryId: id,
        problem: `entry ${id} was changed (its hash does not match its contents)`,
      };
      return false;
    }
    this.count += 1;
    this.firstId ??= entry.id;
    this.lastGoodId = entry.id;
    this.expectedId = id + 1;
    this.expectedPrevHash = entry.hash;
    return true;
  }

  result(): AuditVerification {
    const result = this.chainResult();
    if (result.ok || this.chain === undefined || this.failure) return result;
    return { ...result, entryId: this.lastGoodId, problem: `${this.chain}: ${result.problem}` };
  }

  private chainResult(): AuditVerification {
    if (this.failure) return { ok: false, entries: this.count, ...this.failure };
    const lastId = this.expectedId - 1;
    if (lastId !== this.state.headId) {
      if (lastId > this.state.headId) {
        return {
          ok: false,
          entries: this.count,
          entryId: this.state.headId + 1,
          problem: `entry ${this.state.headId + 1} is past the recorded head ${this.state.headId} (written outside the gateway)`,
        };
      }
      return {
        ok: false,
        entries: this.count,
        entryId: lastId + 1,
        problem:
          lastId + 1 === this.state.headId
            ? `entry ${this.state.headId}, the last one written, is missing (removed)`
            : `entries ${lastId + 1} to ${this.state.headId}, the last ones written, are missing (removed)`,
      };
    }
    if (this.expectedPrevHash !== this.state.headHash) {
      return {
        ok: false,
        entries: this.count,
        entryId: lastId,
        problem: `entry ${lastId} was changed (its hash differs from the recorded head)`,
      };
    }
    return this.count === 0
      ? { ok: true, entries: 0 }
      : { ok: true, entries: this.count, firstId: this.firstId, lastId: this.lastGoodId };
  }
}

/** Verifies a whole chain held in memory (tests, small logs). */
export function verifyAuditChain(state: AuditChainState, entries: Iterable<AuditEntry>): AuditVerification {
  const verifier = new AuditChainVerifier(state);
  for (const entry of entries) if (!verifier.add(entry)) break;
  return verifier.result();
}
