import { EntityManager } from 'typeorm';

/** An OCSP signer certificate as recorded when issuance signs it. */
export interface OcspSignerCertification {
  serialHex: string;
  tenantId: string;
  caId: string;
  issuer: string | null;
  publicKeySha256: string;
  notAfter: Date;
}

/** `issuance.ocsp_signer_certifications`: every OCSP signer certified, counted per CA and hour. */
export abstract class OcspSignerCertificationStore {
  /** Holds the CA's count until the transaction ends, so concurrent requests cannot both pass the bound. */
  abstract lockCa(caId: string): Promise<void>;
  /** How many the CA certified within the last hour. */
  abstract certifiedWithinHour(caId: string): Promise<number>;
  /** Records one; returns when (the database's clock). */
  abstract record(certification: OcspSignerCertification): Promise<Date>;
}

export class SqlOcspSignerCertificationStore extends OcspSignerCertificationStore {
  constructor(private readonly db: EntityManager) {
    super();
  }

  async lockCa(caId: string): Promise<void> {
    await this.db.query("SELECT pg_advisory_xact_lock(hashtextextended('issuance.ocsp-signer:' || $1, 0))", [
      caId,
    ]);
  }

  async certifiedWithinHour(caId: string): Promise<number> {
    const [{ recent }]: { recent: number }[] = await this.db.query(
      `SELECT count(*)::int AS recent FROM issuance.ocsp_signer_certifications
          WHERE ca_id = $1 AND certified_at > now() - interval '1 hour'`,
      [caId],
    );
    return recent;
  }

  async record({
    serialHex,
    tenantId,
    caId,
    issuer,
    publicKeySha256,
    notAfter,
  }: OcspSignerCertification): Promise<Date> {
    const [{ certified_at: certifiedAt }]: { certified_at: Date }[] = await this.db.query(
      `INSERT INTO issuance.ocsp_signer_certifications
           (serial_number, tenant_id, ca_id, issuer, public_key_sha256, not_after)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING certified_at`,
      [serialHex, tenantId, caId, issuer, publicKeySha256, notAfter],
    );
    return certifiedAt;
  }
}
