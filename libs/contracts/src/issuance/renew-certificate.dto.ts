import { KeyAlgorithm } from './key-algorithm';
import { KeyedCommand, TenantCommand } from '../common/tenant-command';
import { ResponseFormat } from './certificate-status';
import type { CertificateDelivery } from './issue-certificate.dto';
import { Pkcs12Profile } from './pkcs12-profile';
import {
  CsrPemField,
  LeafKeyAlgorithmField,
  PasswordProtectedField,
  Pkcs12ProfileField,
  ResponseFormatField,
  ValidityField,
} from './request-fields';

/** docs/api.md#renew-a-certificate: body of POST /v1/certificates/{id}/renew. */
export class RenewCertificateRequest {
  @ValidityField(3650)
  validityDays!: number;

  @ResponseFormatField()
  responseFormat?: ResponseFormat;

  @PasswordProtectedField()
  passwordProtected?: boolean;
}

/** Body of POST /v2/certificates/{id}/renew: the v1 body plus the PKCS#12 profile and a CSR. */
export class RenewCertificateV2Request extends RenewCertificateRequest {
  @LeafKeyAlgorithmField()
  keyAlgorithm?: KeyAlgorithm;

  @Pkcs12ProfileField()
  pkcs12Profile?: Pkcs12Profile;

  /** The new key comes from this CSR (docs/api.md#csr-issuance); read by the gateway only. */
  @CsrPemField()
  csrPem?: string;
}

export interface RenewCertificateCommand extends TenantCommand, KeyedCommand {
  certificateId: string;
  request: RenewCertificateRequest;
}

/** docs/api.md#renew-a-certificate response; the delivery fields follow the presence rules of docs/api.md#issuance-answer. */
export interface RenewCertificateResponse extends CertificateDelivery {
  newCertificateId: string;
  serialNumber: string;
  expiresAt: string;
}
