import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mustRun } from './proc';

/** A minimal openssl.cnf: a P-256 root for `req -x509`, and `ca` settings for -gencrl / index.txt. */
export const OPENSSL_CNF = `[ req ]
distinguished_name = dn
x509_extensions = v3_ca
prompt = no
[ dn ]
CN = Bench openssl CA
[ v3_ca ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[ client ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[ ca ]
default_ca = CA_default
[ CA_default ]
dir = .
database = $dir/index.txt
crlnumber = $dir/crlnumber
certificate = $dir/ca.pem
private_key = $dir/ca.key
default_md = sha256
default_crl_days = 7
unique_subject = no
crl_extensions = crl_ext
[ crl_ext ]
authorityKeyIdentifier = keyid:always
`;

/** A throwaway openssl CA in `dir`: openssl.cnf, ca.key (P-256, unencrypted), ca.pem. */
export async function makeOpensslCa(dir: string): Promise<void> {
  writeFileSync(join(dir, 'openssl.cnf'), OPENSSL_CNF);
  await mustRun(
    'openssl',
    ['req', '-x509', '-config', 'openssl.cnf', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'].concat(
      ['-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650'],
    ),
    { cwd: dir },
  );
}

/** YYMMDDHHMMSSZ, as index.txt wants it. */
export function indexTime(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';
}
