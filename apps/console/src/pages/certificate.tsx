import { useState } from 'preact/hooks';
import { api, download } from '../api';
import { ocspStatus } from '../ocsp';
import { BASE } from '../router';
import { Session } from '../session';
import { Dialog, Loaded, Problem, REASON_CODES, StatusBadge, formatDate, useAction, useLoad } from '../ui';
import { CertificateFields, readCertificate } from '../x509';
import { CaEntry, CertificateDetail } from './types';

interface Renewed {
  newCertificateId: string;
  privateKeyPem?: string;
  certificatePem?: string;
  chainPem?: string;
}

/** The issuing chain of a certificate, from the tenant's CAs (its issuer first, the root last). */
function chainOf(fields: CertificateFields, cas: CaEntry[]): { ca: CaEntry; fields: CertificateFields }[] {
  const known = cas
    .filter((ca) => ca.certificatePem)
    .map((ca) => ({ ca, fields: readCertificate(ca.certificatePem!) }));
  const chain: { ca: CaEntry; fields: CertificateFields }[] = [];
  let current = fields;
  while (chain.length < 5) {
    const issuer = known.find(
      (k) =>
        k.fields.subject === current.issuer &&
        (!current.authorityKeyId || k.fields.subjectKeyId === current.authorityKeyId),
    );
    if (!issuer || chain.includes(issuer)) break;
    chain.push(issuer);
    if (issuer.fields.subject === issuer.fields.issuer) break;
    current = issuer.fields;
  }
  return chain;
}

function RevokeDialog({
  session,
  detail,
  onDone,
}: {
  session: Session;
  detail: CertificateDetail;
  onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [reasonCode, setReasonCode] = useState('Unspecified');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api(session, 'POST', `/v1/certificates/${encodeURIComponent(detail.certificateId)}/revoke`, {
        body: { reason, reasonCode },
      });
      setOpen(false);
      onDone();
    });
  };
  return (
    <>
      <button type="button" class="danger" data-testid="revoke-button" onClick={() => setOpen(true)}>
        Revoke…
      </button>
      <Dialog title={`Revoke ${detail.commonName}`} open={open} onClose={() => setOpen(false)}>
        <form onSubmit={submit}>
          <p>
            Serial <code>{detail.serialNumber}</code>. Relying parties see the revocation in OCSP at once and
            in the CRL within seconds.
          </p>
          <label for="revoke-reason">Reason (kept in the audit log, never published)</label>
          <input
            id="revoke-reason"
            data-testid="revoke-reason"
            required
            maxLength={255}
            value={reason}
            onInput={(e) => setReason((e.target as HTMLInputElement).value)}
          />
          <label for="revoke-reason-code">Reason code (published in the CRL and OCSP)</label>
          <select
            id="revoke-reason-code"
            data-testid="revoke-reason-code"
            value={reasonCode}
            onChange={(e) => setReasonCode((e.target as HTMLSelectElement).value)}
          >
            {REASON_CODES.map((code) => (
              <option key={code}>{code}</option>
            ))}
          </select>
          <p class="hint">
            {reasonCode === 'CertificateHold' ? 'A hold can be released later.' : 'This cannot be undone.'}
          </p>
          {action.error && <Problem error={action.error} />}
          <div class="actions">
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" class="danger" data-testid="revoke-confirm" disabled={action.pending}>
              {action.pending ? 'Revoking…' : 'Revoke'}
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

function RenewDialog({
  session,
  detail,
  fields,
}: {
  session: Session;
  detail: CertificateDetail;
  fields: CertificateFields;
}) {
  const days = Math.max(1, Math.round((fields.notAfter.getTime() - fields.notBefore.getTime()) / 86_400_000));
  const [open, setOpen] = useState(false);
  const [validityDays, setValidityDays] = useState(String(days));
  const [renewed, setRenewed] = useState<Renewed>();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setRenewed(
        await api<Renewed>(
          session,
          'POST',
          `/v2/certificates/${encodeURIComponent(detail.certificateId)}/renew`,
          {
            body: { validityDays: Number(validityDays), responseFormat: 'Text' },
          },
        ),
      );
    });
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)} data-testid="renew-button">
        Renew…
      </button>
      <Dialog title={`Renew ${detail.commonName}`} open={open} onClose={() => setOpen(false)}>
        {renewed ? (
          <div>
            <p role="status">
              Renewed: <a href={`${BASE}/certificates/${renewed.newCertificateId}`}>the new certificate</a>.
              Its private key is shown only now: save it.
            </p>
            <div class="actions">
              {renewed.privateKeyPem && (
                <button
                  type="button"
                  onClick={() => download('private-key.pem', new Blob([renewed.privateKeyPem!]))}
                >
                  Download the private key
                </button>
              )}
              {renewed.certificatePem && (
                <button
                  type="button"
                  onClick={() =>
                    download(
                      'certificate.pem',
                      new Blob([renewed.certificatePem! + (renewed.chainPem ?? '')]),
                    )
                  }
                >
                  Download the certificate and chain
                </button>
              )}
              <button type="button" onClick={() => setOpen(false)}>
                Close
              </button>
            </div>
          </div>
        ) : (
          <form onSubmit={submit}>
            <p>
              A new certificate with a new key, the same names and usage. This one stays valid until it
              expires.
            </p>
            <label for="renew-days">Validity (days)</label>
            <input
              id="renew-days"
              type="number"
              min={1}
              max={3650}
              required
              value={validityDays}
              onInput={(e) => setValidityDays((e.target as HTMLInputElement).value)}
            />
            {action.error && <Problem error={action.error} />}
            <div class="actions">
              <button type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
              <button type="submit" class="primary" disabled={action.pending}>
                {action.pending ? 'Renewing…' : 'Renew'}
              </button>
            </div>
          </form>
        )}
      </Dialog>
    </>
  );
}

function Ocsp({
  fields,
  issuer,
  status,
}: {
  fields: CertificateFields;
  issuer?: CertificateFields;
  status: string;
}) {
  const [answer, reload] = useLoad(
    () => (issuer && fields.ocspUrls[0] ? ocspStatus(fields, issuer) : Promise.resolve(undefined)),
    // Asked again when the API's status changes (a revocation from this page).
    [fields.serialNumber, issuer?.subjectKeyId, status],
  );
  if (!fields.ocspUrls[0]) return <span>no OCSP address in the certificate</span>;
  if (!issuer) return <span>unknown (the issuing CA is not listed)</span>;
  return (
    <Loaded load={answer} what="the OCSP answer" onRetry={reload}>
      {(a) =>
        a ? (
          <span data-testid="ocsp-status">
            <strong>{a.status}</strong>
            {a.revokedAt && `, since ${formatDate(a.revokedAt)}`}
            {a.reason && ` (${a.reason})`}{' '}
            <span class="hint">
              as {fields.ocspUrls[0]} answered at {formatDate(a.producedAt)}
            </span>{' '}
            <button type="button" class="link" onClick={reload}>
              Ask again
            </button>
          </span>
        ) : (
          <span>—</span>
        )
      }
    </Loaded>
  );
}

export function CertificatePage({ session, certificateId }: { session: Session; certificateId: string }) {
  const [detail, reload] = useLoad(
    () => api<CertificateDetail>(session, 'GET', `/v1/certificates/${encodeURIComponent(certificateId)}`),
    [session, certificateId],
  );
  const [cas] = useLoad(
    () =>
      session.scopes.includes('ca:admin')
        ? api<{ cas: CaEntry[] }>(session, 'GET', '/v2/ca')
        : Promise.resolve({ cas: [] }),
    [session],
  );
  return (
    <Loaded load={detail} what="the certificate" onRetry={reload}>
      {(d) => {
        const fields = readCertificate(d.certificatePem);
        const chain = cas.state === 'done' ? chainOf(fields, cas.value.cas) : [];
        return (
          <>
            <p class="crumbs">
              <a href={`${BASE}/certificates`}>Certificates</a> /
            </p>
            <h1>
              {d.commonName} <StatusBadge status={d.status} />
            </h1>
            <div class="actions">
              <button
                type="button"
                onClick={() =>
                  download(
                    `${d.serialNumber}.pem`,
                    new Blob([d.certificatePem], { type: 'application/x-pem-file' }),
                  )
                }
              >
                Download PEM
              </button>
              {chain.length > 0 && (
                <button
                  type="button"
                  onClick={() =>
                    download(
                      `${d.serialNumber}-chain.pem`,
                      new Blob([
                        d.certificatePem,
                        ...chain.filter((c) => c.ca.role !== 'root').map((c) => c.ca.certificatePem!),
                      ]),
                    )
                  }
                >
                  Download with chain
                </button>
              )}
              {d.status !== 'Revoked' && <RenewDialog session={session} detail={d} fields={fields} />}
              {d.status !== 'Revoked' && <RevokeDialog session={session} detail={d} onDone={reload} />}
            </div>
            <section aria-labelledby="fields">
              <h2 id="fields">Certificate</h2>
              <dl class="fields">
                <dt>Status</dt>
                <dd data-testid="certificate-status">{d.status}</dd>
                <dt>OCSP</dt>
                <dd>
                  <Ocsp fields={fields} issuer={chain[0]?.fields} status={d.status} />
                </dd>
                {d.revokedAt && (
                  <>
                    <dt>Revoked at</dt>
                    <dd>{formatDate(d.revokedAt)}</dd>
                    <dt>Revocation reason</dt>
                    <dd>{d.revocationReason}</dd>
                  </>
                )}
                <dt>Subject</dt>
                <dd>{fields.subject}</dd>
                <dt>Issuer</dt>
                <dd>{fields.issuer}</dd>
                <dt>Serial number</dt>
                <dd>
                  <code>{d.serialNumber}</code>
                </dd>
                <dt>Client id</dt>
                <dd>{d.clientId}</dd>
                <dt>Valid from</dt>
                <dd>{formatDate(fields.notBefore)}</dd>
                <dt>Valid until</dt>
                <dd>
                  {formatDate(fields.notAfter)}
                  {d.status === 'Active' && ` (${d.daysUntilExpiration} days left)`}
                </dd>
                {d.renewalWindow && d.status !== 'Revoked' && (
                  <>
                    <dt>Renew between</dt>
                    <dd>
                      {formatDate(d.renewalWindow.start)} and {formatDate(d.renewalWindow.end)}
                    </dd>
                  </>
                )}
                {d.successorId && (
                  <>
                    <dt>Renewed as</dt>
                    <dd>
                      <a href={`${BASE}/certificates/${d.successorId}`}>{d.successorId}</a>
                    </dd>
                  </>
                )}
                <dt>Public key</dt>
                <dd>{fields.publicKey}</dd>
                <dt>Signature</dt>
                <dd>{fields.signatureAlgorithm}</dd>
                <dt>Certificate id</dt>
                <dd>
                  <code>{d.certificateId}</code>
                </dd>
              </dl>
            </section>
            <section aria-labelledby="extensions">
              <h2 id="extensions">Extensions</h2>
              <dl class="fields">
                {fields.extensions.map((e) => (
                  <>
                    <dt key={`${e.oid}-t`}>
                      {e.name}
                      {e.critical && <span class="badge">critical</span>}
                    </dt>
                    <dd key={`${e.oid}-d`}>{e.description}</dd>
                  </>
                ))}
              </dl>
            </section>
            <section aria-labelledby="chain">
              <h2 id="chain">Chain</h2>
              {cas.state === 'error' ? (
                <Problem error={cas.error} />
              ) : (
                <ol class="chain">
                  <li>{fields.subject} (this certificate)</li>
                  {chain.map((c) => (
                    <li key={c.ca.caId}>
                      {c.fields.subject} ({c.ca.role}, {c.ca.state})
                    </li>
                  ))}
                </ol>
              )}
            </section>
            <section aria-labelledby="pem">
              <h2 id="pem">PEM</h2>
              <pre class="pem" tabIndex={0} aria-label="The certificate in PEM">
                {d.certificatePem}
              </pre>
            </section>
          </>
        );
      }}
    </Loaded>
  );
}
