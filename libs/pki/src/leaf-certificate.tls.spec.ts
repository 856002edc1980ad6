import type { AddressInfo } from 'node:net';
import * as tls from 'node:tls';

import { buildCaCertificate } from './ca-certificate.builder';
import { generateEcKeyPair } from './ec-key-pair';
import {
  buildLeafCertificate,
  type IssuerKey,
  type LeafCertificateProfile,
} from './leaf-certificate.builder';
import { derToPem } from './pem';
import { exportPrivateKeyPem, generateLeafKeyPair } from './private-key';
import { randomSerialNumber } from './serial-number';

interface Credentials {
  cert: string;
  key: string;
}

/** A TLS server on an ephemeral port; resolves with the port once it listens. */
async function listen(
  options: tls.TlsOptions,
  onSecure: (socket: tls.TLSSocket) => void,
): Promise<tls.Server> {
  const server = tls.createServer(options, (socket) => {
    onSecure(socket);
    socket.end('hello');
  });
  server.on('tlsClientError', () => undefined); // the failing handshakes below are expected
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Connects, and resolves with what the server wrote, or rejects with the handshake error. */
function connect(port: number, options: tls.ConnectionOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ...options });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

const portOf = (server: tls.Server) => (server.address() as AddressInfo).port;
const close = (server: tls.Server) => new Promise((resolve) => server.close(resolve));

// Node's TLS stack (its bundled OpenSSL) as the relying party: chain, EKU purpose and host name.
describe('leaf certificates in a Node TLS handshake', () => {
  let caPem: string;
  let server: Credentials;
  let client: Credentials;

  beforeAll(async () => {
    const caKeys = await generateEcKeyPair(false);
    const now = Date.now();
    const caDer = await buildCaCertificate(
      {
        subject: { organization: 'Acme', commonName: 'Acme Root CA' },
        notBefore: new Date(now - 60_000),
        notAfter: new Date(now + 365 * 86_400_000),
        serialNumber: randomSerialNumber(),
      },
      caKeys,
    );
    caPem = derToPem(caDer);
    const issuer: IssuerKey = { certificateDer: caDer, privateKey: caKeys.privateKey };
    const issue = async (
      profile: Omit<LeafCertificateProfile, 'notBefore' | 'notAfter' | 'serialNumber'>,
    ) => {
      const keys = await generateLeafKeyPair();
      const der = await buildLeafCertificate(
        {
          ...profile,
          notBefore: new Date(now - 60_000),
          notAfter: new Date(now + 86_400_000),
          serialNumber: randomSerialNumber(),
        },
        keys.publicKey,
        issuer,
      );
      return { cert: derToPem(der), key: await exportPrivateKeyPem(keys.privateKey) };
    };
    server = await issue({
      subject: { organization: 'Tenant', commonName: 'api' },
      extendedKeyUsages: ['serverAuth'],
      dnsNames: ['*.example.com'],
      mustStaple: false,
    });
    client = await issue({
      subject: { organization: 'Tenant', commonName: 'client-7' },
      extendedKeyUsages: ['clientAuth'],
    });
  });

  describe('server certificate with the SAN *.example.com', () => {
    let tlsServer: tls.Server;
    beforeAll(async () => {
      tlsServer = await listen({ ...server }, () => undefined);
    });
    afterAll(() => close(tlsServer));

    it('is accepted for api.example.com, which the wildcard covers', async () => {
      await expect(connect(portOf(tlsServer), { ca: caPem, servername: 'api.example.com' })).resolves.toBe(
        'hello',
      );
    });

    it('is refused for other.test with a host name error', async () => {
      await expect(connect(portOf(tlsServer), { ca: caPem, servername: 'other.test' })).rejects.toMatchObject(
        {
          code: 'ERR_TLS_CERT_ALTNAME_INVALID',
          message: expect.stringContaining("Hostname/IP does not match certificate's altnames"),
        },
      );
    });

    it('is refused for a.b.example.com: a wildcard matches one label only', async () => {
      await expect(
        connect(portOf(tlsServer), { ca: caPem, servername: 'a.b.example.com' }),
      ).rejects.toMatchObject({
        code: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
    });

    it('is refused by a client that does not trust the CA', async () => {
      await expect(connect(portOf(tlsServer), { servername: 'api.example.com' })).rejects.toMatchObject({
        code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      });
    });
  });

  it('refuses a clientAuth-only certificate presented by a server', async () => {
    const tlsServer = await listen({ ...client }, () => undefined);
    try {
      await expect(
        connect(portOf(tlsServer), { ca: caPem, checkServerIdentity: () => undefined }),
      ).rejects.toMatchObject({
        code: 'INVALID_PURPOSE',
      });
    } finally {
      await close(tlsServer);
    }
  });

  describe('client certificate (mTLS)', () => {
    let tlsServer: tls.Server;
    const peers: { authorized: boolean; commonName: unknown }[] = [];
    beforeAll(async () => {
      tlsServer = await listen(
        { ...server, ca: caPem, requestCert: true, rejectUnauthorized: true },
        (socket) => {
          peers.push({ authorized: socket.authorized, commonName: socket.getPeerCertificate().subject?.CN });
        },
      );
    });
    afterAll(() => close(tlsServer));

    it('is accepted by a server with requestCert and rejectUnauthorized', async () => {
      await expect(
        connect(portOf(tlsServer), { ca: caPem, servername: 'api.example.com', ...client }),
      ).resolves.toBe('hello');
      expect(peers).toEqual([{ authorized: true, commonName: 'client-7' }]);
    });

    it('is required: a client without one does not get through', async () => {
      peers.length = 0;
      await expect(
        connect(portOf(tlsServer), { ca: caPem, servername: 'api.example.com' }),
      ).rejects.toThrow();
      expect(peers).toEqual([]);
    });
  });
});
