import { IsNotEmpty, IsString, Length } from 'class-validator';
import { KeyedCommand, TenantCommand } from '../common/tenant-command';
import { ResponseFormat } from './certificate-status';
import {
  CountryField,
  PasswordProtectedField,
  ResponseFormatField,
  SubjectNameField,
  ValidityField,
} from './request-fields';

/** docs/api.md#issue-a-certificate-v1: body of POST /v1/certificates. */
export class IssueCertificateRequest {
  @IsString()
  @IsNotEmpty()
  @Length(1, 100)
  clientId!: string;

  @SubjectNameField()
  commonName!: string;

  @SubjectNameField()
  organization!: string;

  @SubjectNameField()
  organizationalUnit!: string;

  @CountryField()
  country!: string;

  @ValidityField(3650)
  validityDays!: number;

  @ResponseFormatField()
  responseFormat?: ResponseFormat;

  @PasswordProtectedField()
  passwordProtected?: boolean;
}

export interface IssueCertificateCommand extends TenantCommand, KeyedCommand {
  request: IssueCertificateRequest;
}

/**
 * What issuance returns for a new certificate; the gateway shapes docs/api.md#issuance-answer, docs/api.md#renew-a-certificate from it and adds
 * the private key it generated itself (no private key ever crosses the bus).
 */
export interface IssuedCertificate {
  certificateId: string;
  serialNumber: string;
  expiresAt: string;
  certificatePem: string;
  /** The issuing tenant CA, for the PKCS#12 bundle the gateway builds (docs/api.md#issuance-answer passwordProtected). */
  caCertificatePem: string;
  /** docs/api.md#chains: the CA certificates from the issuer up to, not including, the root; '' when the root signed. */
  chainPem: string;
}

/**
 * How the key material is handed over (docs/api.md#issuance-answer): inline PEMs (Text) or pre-signed download
 * links (File), plus a PKCS#12 and its password when passwordProtected.
 */
export interface CertificateDelivery {
  /** responseFormat Text. */
  certificatePem?: string;
  /** Whenever certificatePem is present (docs/api.md#chains). */
  chainPem?: string;
  /** responseFormat Text; returned once, not stored. */
  privateKeyPem?: string;
  /** responseFormat File; pre-signed, valid one hour. */
  certificateDownloadUrl?: string;
  /** responseFormat File; pre-signed, valid one hour, works once. */
  privateKeyDownloadUrl?: string;
  /** responseFormat File. */
  downloadUrlExpiresAt?: string;
  /** passwordProtected and Text: the PKCS#12 in base64. */
  pfxBase64?: string;
  /** passwordProtected and File: pre-signed, valid one hour, works once. */
  pfxDownloadUrl?: string;
  /** passwordProtected: the PKCS#12 password, returned once, never stored. */
  password?: string;
}

/** docs/api.md#issuance-answer. */
export interface IssueCertificateResponse extends CertificateDelivery {
  certificateId: string;
  serialNumber: string;
  expiresAt: string;
}
