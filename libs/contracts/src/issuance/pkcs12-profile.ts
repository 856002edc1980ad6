/**
 * How the PKCS#12 of a passwordProtected answer is encrypted: `modern` (PBES2, AES-256-CBC, HMAC-SHA256
 * MAC) or `legacy` (3DES and a SHA-1 MAC, for key stores that predate PBES2); docs/certificate-profile.md.
 */
export const Pkcs12Profile = { Modern: 'modern', Legacy: 'legacy' } as const;
export type Pkcs12Profile = (typeof Pkcs12Profile)[keyof typeof Pkcs12Profile];
