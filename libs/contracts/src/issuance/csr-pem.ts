/** docs/api.md#csr-issuance: the longest `csrPem` accepted, in characters (a 4096-bit RSA request is about 1.7 KiB). */
export const MAX_CSR_PEM_LENGTH = 16 * 1024;
