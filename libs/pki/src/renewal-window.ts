import { createHash } from 'node:crypto';

/** An ACME Renewal Information window (RFC 9773 4.2): renew at a moment between start and end. */
export interface RenewalWindow {
  start: Date;
  end: Date;
}

/** How long a replace-now window lasts, ending at the moment replacement was asked for. */
const REPLACE_NOW_WINDOW_MS = 60 * 60 * 1000;

/**
 * The suggested renewal window of a leaf. By default it lies within the last third of the
 * validity, one ninth of the validity long, placed by a hash of the serial so that certificates
 * issued together do not all renew at once (RFC 9773 4.2 asks servers to spread load). Once the
 * tenant asked to replace the leaves of its CA (`replaceAfter`), the window ends at that moment:
 * it lies in the past and clients renew at their next check (RFC 9773 4.2).
 */
export function renewalWindow(certificate: {
  serialNumberHex: string;
  notBefore: Date;
  notAfter: Date;
  replaceAfter?: Date | null;
}): RenewalWindow {
  if (certificate.replaceAfter) {
    const end = certificate.replaceAfter.getTime();
    return { start: new Date(end - REPLACE_NOW_WINDOW_MS), end: new Date(end) };
  }
  const from = certificate.notBefore.getTime();
  const lifetime = certificate.notAfter.getTime() - from;
  const width = lifetime / 9;
  const spread = lifetime / 3 - width;
  const digest = createHash('sha256').update(certificate.serialNumberHex.toUpperCase()).digest();
  const fraction = digest.readUInt32BE(0) / 0x1_0000_0000;
  const start = Math.floor(from + (2 * lifetime) / 3 + fraction * spread);
  return { start: new Date(start), end: new Date(Math.floor(start + width)) };
}
