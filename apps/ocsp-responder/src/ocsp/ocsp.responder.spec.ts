import { buildCertId, parseOcspResponse } from '@ca/pki';
import { TestPki, createTestPki } from '@ca/pki/testing';
import { CaCertificateStore } from '../ca-certificates/ca-certificate.store';
import {
  CertificateStatusProjection,
  CertificateStatusRow,
} from '../certificate-status/certificate-status.projection';
import { OcspSignerKeeper } from '../signers/ocsp-signer.keeper';
import { OcspResponseCache } from './ocsp-response.cache';
import { DEFAULT_OCSP_LIMITS, OcspOverloadedError, OcspResponder } from './ocsp.responder';

const TENANT = '3f1c2b4a-0d5e-4f6a-8b7c-9d0e1f2a3b4c';
const KNOWN = '0A1B2C3D';
const CA_ID = '5b0d1c2e-3f4a-4b5c-8d6e-7f8091a2b3c4';
const ADDED_CA_ID = '6c1e2d3f-4a5b-4c6d-9e7f-8091a2b3c4d5';
/** Issued by the CA added later (docs/api.md#add-an-issuing-ca). */
const ADDED_KNOWN = '0A1B2C3E';

/** DER of one element, to build OCSP requests directly. */
function der(tag: number, ...parts: Uint8Array[]): Buffer {
  const content = Buffer.concat(parts);
  const n = content.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

const request = (certIds: Uint8Array[]) =>
  der(0x30, der(0x30, der(0x30, ...certIds.map((c) => der(0x30, c)))));

describe('OcspResponder', () => {
  let pki: TestPki;
  let other: TestPki;
  let added: TestPki;

  beforeAll(async () => {
    pki = await createTestPki('Responder Spec Root');
    other = await createTestPki('Responder Spec Root');
    added = await createTestPki('Responder Spec Added');
  });

  function responder(limits = DEFAULT_OCSP_LIMITS, cache = new OcspResponseCache()) {
    const ca = {
      tenantId: TENANT,
      caId: CA_ID,
      der: Buffer.from(pki.caDer),
      added: [{ caId: ADDED_CA_ID, certificate: { der: Buffer.from(added.caDer) } }],
    };
    const cas = { find: async () => ca, cached: () => ca } as unknown as CaCertificateStore;
    const rows = new Map<string, CertificateStatusRow>([
      [
        KNOWN,
        { caId: CA_ID, notAfter: new Date(Date.now() + 86_400_000), revokedAt: null, reasonCode: null },
      ],
      [
        ADDED_KNOWN,
        { caId: ADDED_CA_ID, notAfter: new Date(Date.now() + 86_400_000), revokedAt: null, reasonCode: null },
      ],
    ]);
    const pick = (serials: string[]) =>
      new Map(serials.filter((s) => rows.has(s)).map((s) => [s, rows.get(s)!] as const));
    const statuses = {
      find: async (_tenant: string, serials: string[]) => pick(serials),
      remembered: (_tenant: string, serials: string[]) =>
        serials.every((s) => rows.has(s)) ? pick(serials) : undefined,
    } as unknown as CertificateStatusProjection;
    const signer = {
      certificateDer: pki.ocspSignerDer,
      privateKey: pki.ocspSignerKeys.privateKey,
      notAfter: new Date(Date.now() + 30 * 86_400_000),
    };
    const signers = { signerFor: async () => signer } as unknown as OcspSignerKeeper;
    return {
      responder: new OcspResponder(cas, statuses, signers, cache, limits, undefined, signers),
      cache,
      rows,
    };
  }

  const certId = (serialNumberHex: string, issuer = pki) =>
    buildCertId({ issuerCertificateDer: issuer.caDer, serialNumberHex, hashAlgorithm: 'sha1' }).der;

  it('answers a serial not seen without nextUpdate, not cacheable, and caches nothing (RFC 6960 2.4)', async () => {
    const { responder: r, cache } = responder();
    const answer = await r.answer(TENANT, request([certId('0F0F0F0F')]));
    expect(answer.unknown).toBe(true);
    expect(answer.cache).toBeUndefined();
    expect(cache.size).toBe(0);
    const info = parseOcspResponse(answer.der);
    expect(info.responseStatus).toBe('successful');
    if (info.responseStatus !== 'successful') return;
    expect(info.responses[0].status.kind).toBe('unknown');
    expect(info.responses[0].nextUpdate).toBeUndefined();
    // Known serials in the same request keep their nextUpdate; the whole answer is still not cacheable.
    const mixed = await r.answer(TENANT, request([certId(KNOWN), certId('0F0F0F0F')]));
    expect(mixed.unknown).toBe(true);
    expect(cache.size).toBe(0);
  });

  it("caches a known serial's answer with the hex SHA-256 ETag and OCSP_VALIDITY to nextUpdate", async () => {
    const { responder: r, cache } = responder({ ...DEFAULT_OCSP_LIMITS, validitySeconds: 1800 });
    const answer = await r.answer(TENANT, request([certId(KNOWN)]));
    expect(answer.cache!.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(answer.cache!.nextUpdate.getTime() - answer.cache!.thisUpdate.getTime()).toBe(1_800_000);
    expect(cache.size).toBe(1);
    expect(r.answerFromMemory(TENANT, request([certId(KNOWN)]))?.der).toEqual(answer.der);
  });

  it('does not serve the good answer signed before a hold once the hold is released', async () => {
    const { responder: r, cache, rows } = responder();
    const notAfter = new Date(Date.now() + 86_400_000);
    const beforeHold = await r.answer(TENANT, request([certId(KNOWN)]));
    const heldAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    rows.set(KNOWN, { caId: CA_ID, notAfter, revokedAt: heldAt, reasonCode: 6, changedAt: heldAt });
    const held = await r.answer(TENANT, request([certId(KNOWN)]));
    rows.set(KNOWN, {
      caId: CA_ID,
      notAfter,
      revokedAt: null,
      reasonCode: null,
      changedAt: new Date(heldAt.getTime() + 5),
    });
    const released = await r.answer(TENANT, request([certId(KNOWN)]));

    const kinds = [beforeHold, held, released].map((a) => {
      const info = parseOcspResponse(a.der);
      return info.responseStatus === 'successful' ? info.responses[0].status.kind : info.responseStatus;
    });
    expect(kinds).toEqual(['good', 'revoked', 'good']);
    // Signed anew after the release: three answers cached, the memory path serves the newest.
    expect(released.der).not.toEqual(beforeHold.der);
    expect(cache.size).toBe(3);
    expect(r.answerFromMemory(TENANT, request([certId(KNOWN)]))?.der).toEqual(released.der);
  });

  it('answers unknown for a serial that another CA of the tenant issued (RFC 6960 4.1.1)', async () => {
    const { responder: r } = responder();
    const kinds = async (ids: Uint8Array[]) => {
      const info = parseOcspResponse((await r.answer(TENANT, request(ids))).der);
      return info.responseStatus === 'successful' ? info.responses.map((x) => x.status.kind) : [];
    };
    expect(await kinds([certId(KNOWN), certId(ADDED_KNOWN)])).toEqual(['good', 'unknown']);
    expect(await kinds([certId(ADDED_KNOWN, added), certId(KNOWN, added)])).toEqual(['good', 'unknown']);
  });

  it('says unauthorized when any CertID names another issuer, even beside ours', async () => {
    const { responder: r } = responder();
    for (const ids of [[certId(KNOWN, other)], [certId(KNOWN), certId(KNOWN, other)]]) {
      expect(parseOcspResponse((await r.answer(TENANT, request(ids))).der).responseStatus).toBe(
        'unauthorized',
      );
    }
  });

  it('says malformedRequest past maxCertIds', async () => {
    const { responder: r } = responder({ ...DEFAULT_OCSP_LIMITS, maxCertIds: 2 });
    const ids = [certId(KNOWN), certId(KNOWN), certId(KNOWN)];
    expect(parseOcspResponse((await r.answer(TENANT, request(ids))).der).responseStatus).toBe(
      'malformedRequest',
    );
    expect(r.answerFromMemory(TENANT, request(ids))).toBeUndefined();
  });

  it('sheds a signing past maxSigningsInFlight instead of queueing it', async () => {
    const { responder: r } = responder({ ...DEFAULT_OCSP_LIMITS, maxSigningsInFlight: 1 });
    const results = await Promise.allSettled([
      r.answer(TENANT, request([certId('01')])),
      r.answer(TENANT, request([certId('02')])),
    ]);
    expect(results[0].status).toBe('fulfilled');
    expect(results[1]).toMatchObject({ status: 'rejected', reason: expect.any(OcspOverloadedError) });
    // Once the first is signed, the next one is answered.
    await expect(r.answer(TENANT, request([certId('03')]))).resolves.toBeDefined();
  });
});
