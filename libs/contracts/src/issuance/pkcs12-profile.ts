/**
 * How the PKCS#12 of a passwordProtected answer is encrypted: `modern` (PBES2, AES-256-CBC, HMAC-SHA256
 * MAC) or `legacy` (3DES and a SHA-1 MAC, for key stores that predate PBES2); docs/certificate-profile.md.
 */
export const Pkcs12Profile = { Modern: 'modern', Legacy: 'legacy' } as const;
export type Pkcs12Profile = (typeof Pkcs12Profile)[keyof typeof Pkcs12Profile];

/** The OpenAPI description of `pkcs12Profile`, shared by the v2 issue and renew bodies. */
export const PKCS12_PROFILE_PROPERTY = {
  enum: Object.values(Pkcs12Profile),
  default: Pkcs12Profile.Modern,
  description:
    'Encryption of the PKCS#12 when passwordProtected is true (ignored otherwise). modern: PBES2 with ' +
    'PBKDF2-HMAC-SHA256 and AES-256-CBC, HMAC-SHA256 MAC (OpenSSL 3, GnuTLS, current Windows and Java). ' +
    'legacy: pbeWithSHAAnd3-KeyTripleDES-CBC and a SHA-1 MAC, for older Windows, the macOS Keychain ' +
    'and Java before 8u301.',
};
