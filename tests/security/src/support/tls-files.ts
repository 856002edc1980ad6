import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TlsFiles {
  /** The CA the services are told to trust (NATS_TLS_CA_FILE). */
  caFile: string;
  /** Another CA, which signed nothing the server presents. */
  otherCaFile: string;
  certFile: string;
  keyFile: string;
}

/** A throwaway CA and a server certificate for 127.0.0.1 and localhost, made with openssl. */
export function makeTlsFiles(dir: string): TlsFiles {
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const selfSignedCa = (name: string) =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path(`${name}-key.pem`),
      '-out',
      path(`${name}.pem`),
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
  selfSignedCa('bus-test-ca');
  selfSignedCa('other-test-ca');
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    path('server-key.pem'),
    '-out',
    path('server.csr'),
    '-subj',
    '/CN=localhost',
  );
  // RFC 5280 4.2.1.6: the client matches the host it dialled against the SAN, not the CN.
  writeFileSync(
    path('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('bus-test-ca.pem'),
    '-CAkey',
    path('bus-test-ca-key.pem'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    path('server.ext'),
    '-out',
    path('server.pem'),
  );
  return {
    caFile: path('bus-test-ca.pem'),
    otherCaFile: path('other-test-ca.pem'),
    certFile: path('server.pem'),
    keyFile: path('server-key.pem'),
  };
}
