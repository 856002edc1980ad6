import { makeNatsServiceKeys } from '@ca/config';
import {
  AckPolicy,
  ConnectionOptions,
  JSONCodec,
  NatsConnection,
  StorageType,
  connect,
  nkeyAuthenticator,
} from 'nats';
import { AcmePattern, EventType, IssuancePattern } from '@ca/contracts';
import { Messaging, openMessaging } from '@ca/messaging';
import { LogDir } from './support/log-dir';
import { describeWithRealServices } from './support/real-services';
import { connectAs, jetStreamRefused, requestOutcome, subscriptionRefused } from './support/rogue-client';
import { NatsAuth, SERVICES, SecuredNatsServer, ServiceName } from './support/secured-nats-server';

/**
 * deploy/nats/nats-server.conf against rogue clients: a nats-server of its own runs the production
 * configuration; clients without credentials are refused, and each service's credentials allow
 * what that service needs (docs/security.md, "The bus") and nothing more.
 */
const OTHERS: ServiceName[] = ['gateway', 'revocation', 'ocsp-responder', 'acme'];

/** The requests each service may make; every other issuance.* request is refused to it. */
const MAY_REQUEST: Record<ServiceName, string[]> = {
  // The admin API's commands: every issuance.ca.*, issuance.certificate.* and issuance.policy.*
  // subject there is; and `npm run ops -- expiring`, run beside the gateway as its user.
  gateway: [
    ...Object.values(IssuancePattern).filter((subject) =>
      /^issuance\.(ca|certificate|policy)\./.test(subject),
    ),
    'issuance.report.expiring',
  ],
  issuance: [],
  revocation: ['issuance.crl.sign', 'issuance.crl.revocations'],
  'ocsp-responder': ['issuance.ocsp-signer.issue', 'issuance.ca.list'],
  acme: [
    'issuance.acme.issue-certificate',
    'issuance.certificate.revoke',
    'issuance.certificate.renewal-info',
    'issuance.policy.get',
    'issuance.ca.list',
  ],
  webhooks: [],
};
const ALL_REQUESTS = [...new Set(Object.values(MAY_REQUEST).flat())];

/** The event types each service may publish (ca.events.<partition>.<type>). */
const MAY_PUBLISH: Record<ServiceName, string[]> = {
  gateway: ['tenant.updated'],
  issuance: [
    'ca.initialized',
    'ca.revoked',
    'ca.issuing-added',
    'ca.root-renewed',
    'ca.replace-leaves-requested',
    'certificate.issued',
    'certificate.revoked',
    'certificate.hold-released',
    'ocsp-signer.certified',
  ],
  revocation: ['crl.published'],
  'ocsp-responder': [],
  acme: [],
  webhooks: [],
};
const ALL_EVENTS = [...new Set(Object.values(MAY_PUBLISH).flat())];
/** The gateway sends every acme.* request (the ACME edge and the EAB key commands). */
const ALL_ACME_REQUESTS: string[] = Object.values(AcmePattern);

const TESTS = 15;
/**
 * Both shipped configurations: nats-server.conf (a password per service) and
 * nats-server-nkeys.conf (an NKey per service), which share permissions.conf: a key holder may do
 * exactly what the password holder may, and nothing more.
 */
describe.each<NatsAuth>(['password', 'nkey'])('signing in by %s', (auth) =>
  describeWithRealServices('security: bus permissions', ['nats-server'])(
    'the production NATS configuration against rogue clients',
    () => {
      const logs = new LogDir(TESTS);
      let nats: SecuredNatsServer;
      const clients = {} as Record<ServiceName, NatsConnection>;
      let issuanceMessaging: Messaging;
      let responder: NatsConnection;

      beforeAll(async () => {
        nats = await SecuredNatsServer.start(logs.path, undefined, auth);
        // issuance opens its messaging first, as it does at start: it creates the stream and the store.
        issuanceMessaging = await openMessaging({
          natsUrl: nats.url,
          name: 'issuance',
          ...nats.messagingCredentials('issuance'),
          inboxPrefix: '_INBOX.issuance',
        });
        for (const service of SERVICES) clients[service] = await connectAs(nats, service);
        // An issuance stand-in that answers every request in the queue group, as the service does.
        responder = await connectAs(nats, 'issuance');
        responder.subscribe('issuance.>', { queue: 'issuance', callback: (_, msg) => msg.respond(msg.data) });
        await responder.flush();
      }, 60_000);

      afterAll(async () => {
        for (const nc of [...Object.values(clients), responder]) await nc?.close();
        await issuanceMessaging?.close();
        await nats?.remove();
        logs.close();
      });

      afterEach(() => {
        const state = expect.getState();
        if (state.assertionCalls > 0 && state.suppressedErrors.length === 0) logs.testPassed();
      });

      it('refuses a client without credentials, with a wrong password or seed, or as an unknown user', async () => {
        // A key the server does not list: what a service with a wrong or stale seed presents.
        const [stranger] = makeNatsServiceKeys(['gateway']);
        const seedOf = (seed: string) => ({
          authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)),
        });
        const attempts: ConnectionOptions[] =
          nats.auth === 'password'
            ? [
                {},
                { user: 'gateway', pass: 'wrong' },
                { user: 'admin', pass: nats.passwords.issuance },
                { user: 'issuance', pass: nats.passwords.gateway },
                // Keys are not accepted where passwords are configured.
                seedOf(nats.keys.gateway.seed),
              ]
            : [
                {},
                seedOf(stranger.seed),
                // No password is accepted once the services sign in by key, not even a right one.
                { user: 'gateway', pass: nats.passwords.gateway },
                { user: nats.keys.gateway.publicKey, pass: 'x' },
                // The public key is not a credential.
                { user: nats.keys.gateway.publicKey },
              ];
        for (const options of attempts) {
          await expect(connect({ servers: nats.url, reconnect: false, ...options })).rejects.toMatchObject({
            code: 'AUTHORIZATION_VIOLATION',
          });
        }
      });

      it('lets every service open its messaging as its own user once issuance created the streams', async () => {
        for (const service of OTHERS) {
          const messaging = await openMessaging({
            natsUrl: nats.url,
            name: service,
            ...nats.messagingCredentials(service),
            inboxPrefix: `_INBOX.${service}`,
          });
          await messaging.close();
        }
        expect(nats.violations()).toEqual([]);
      });

      it('lets the gateway read a large reply issuance put in the blob store; only its writers may purge it or write its metadata', async () => {
        const open = (service: ServiceName) =>
          openMessaging({
            natsUrl: nats.url,
            name: service,
            ...nats.messagingCredentials(service),
            inboxPrefix: `_INBOX.${service}`,
            blobsReadOnly: true,
          });
        const [gateway, responder] = [await open('gateway'), await open('ocsp-responder')];
        try {
          const bytes = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
          const ref = await issuanceMessaging.blobs.put(bytes);
          expect(Buffer.from((await responder.blobs.get(ref))!).equals(Buffer.from(bytes))).toBe(true);
          expect(await gateway.blobs.get(ref)).toHaveLength(bytes.length);
          // A reader's password can neither empty the store (a CRL in flight would be lost) nor
          // point one blob's metadata at another's bytes.
          for (const service of ['gateway', 'acme', 'ocsp-responder'] as const) {
            const jsm = await clients[service].jetstreamManager();
            expect([service, await jetStreamRefused(() => jsm.streams.purge('OBJ_CA_EVENTS_BLOBS'))]).toEqual(
              [service, true],
            );
            expect([
              service,
              await jetStreamRefused(() =>
                clients[service].jetstream().publish(`$O.CA_EVENTS_BLOBS.M.${ref}`, new Uint8Array([1]), {
                  timeout: 2_000,
                }),
              ),
            ]).toEqual([service, true]);
          }
          expect(await gateway.blobs.get(ref)).toHaveLength(bytes.length);
          await issuanceMessaging.blobs.delete(ref);
          expect(await gateway.blobs.get(ref)).toBeUndefined();
        } finally {
          await gateway.close();
          await responder.close();
        }
      });

      it('allows no user to subscribe to everything, to the event subjects or to the JetStream API', async () => {
        for (const service of SERVICES) {
          for (const subject of ['>', '*', 'ca.events.>', '$JS.>', '$JS.API.>', '$O.>', '_INBOX.>']) {
            expect([service, subject, await subscriptionRefused(clients[service], subject)]).toEqual([
              service,
              subject,
              true,
            ]);
          }
        }
      });

      it('lets only issuance take issuance.> requests', async () => {
        for (const service of OTHERS) {
          for (const [subject, queue] of [
            ['issuance.>', undefined],
            ['issuance.certificate.issue', 'issuance'],
            ['issuance.crl.sign', 'issuance'],
            ['issuance.ocsp-signer.issue', undefined],
          ] as const) {
            expect([service, subject, await subscriptionRefused(clients[service], subject, queue)]).toEqual([
              service,
              subject,
              true,
            ]);
          }
        }
        expect(await subscriptionRefused(clients.issuance, 'issuance.>', 'issuance')).toBe(false);
      });

      it("keeps each service's replies to itself: nobody may read another's _INBOX", async () => {
        for (const service of SERVICES) {
          for (const other of SERVICES.filter((s) => s !== service)) {
            const subject = `_INBOX.${other}.>`;
            expect([service, subject, await subscriptionRefused(clients[service], subject)]).toEqual([
              service,
              subject,
              true,
            ]);
          }
          expect(await subscriptionRefused(clients[service], `_INBOX.${service}.>`)).toBe(false);
        }
        // Without its prefix a service cannot even receive its own replies.
        const bare = await connect({
          servers: nats.url,
          ...nats.credentials('gateway'),
          reconnect: false,
        });
        expect(await requestOutcome(bare, 'issuance.certificate.get')).not.toBe('answered');
        await bare.close();
      });

      it('lets each service make exactly the requests it needs, answered through allow_responses', async () => {
        for (const service of SERVICES) {
          for (const subject of ALL_REQUESTS) {
            const expected = MAY_REQUEST[service].includes(subject) ? 'answered' : 'refused';
            expect([service, subject, await requestOutcome(clients[service], subject)]).toEqual([
              service,
              subject,
              expected,
            ]);
          }
        }
        // The gateway's rule is a pattern: every admin command, and nothing of crl/ocsp-signer.
        expect(await requestOutcome(clients.gateway, 'issuance.certificate.list-expiring')).toBe('answered');
      });

      it('lets only acme take acme.> requests, and only the gateway make them', async () => {
        const acmeStandIn = await connectAs(nats, 'acme');
        try {
          acmeStandIn.subscribe('acme.>', { queue: 'acme', callback: (_, msg) => msg.respond(msg.data) });
          await acmeStandIn.flush();
          for (const service of SERVICES.filter((s) => s !== 'acme')) {
            expect([service, await subscriptionRefused(clients[service], 'acme.>', 'acme')]).toEqual([
              service,
              true,
            ]);
          }
          for (const subject of ALL_ACME_REQUESTS) {
            for (const service of SERVICES.filter((s) => s !== 'acme')) {
              const expected = service === 'gateway' ? 'answered' : 'refused';
              expect([service, subject, await requestOutcome(clients[service], subject)]).toEqual([
                service,
                subject,
                expected,
              ]);
            }
          }
        } finally {
          await acmeStandIn.close();
        }
      });

      it('lets only webhooks take webhooks.* requests, the gateway make its API ones and issuance its early events', async () => {
        const standIn = await connectAs(nats, 'webhooks');
        try {
          standIn.subscribe('webhooks.>', { queue: 'webhooks', callback: (_, msg) => msg.respond(msg.data) });
          await standIn.flush();
          for (const service of SERVICES.filter((s) => s !== 'webhooks')) {
            expect([service, await subscriptionRefused(clients[service], 'webhooks.>', 'webhooks')]).toEqual([
              service,
              true,
            ]);
          }
          for (const [subject, sender] of [
            ['webhooks.create', 'gateway'],
            ['webhooks.deliveries', 'gateway'],
            ['webhooks.certificates-issued', 'issuance'],
          ]) {
            for (const service of SERVICES.filter((s) => s !== 'webhooks')) {
              const expected = service === sender ? 'answered' : 'refused';
              expect([service, subject, await requestOutcome(clients[service], subject)]).toEqual([
                service,
                subject,
                expected,
              ]);
            }
          }
          // The webhooks user makes no request of anyone.
          expect(await requestOutcome(clients.webhooks, 'issuance.certificate.get')).toBe('refused');
        } finally {
          await standIn.close();
        }
      });

      it('lets only revocation take the bulk revocation direct path, and only issuance send it', async () => {
        const subject = 'revocation.certificates-revoked';
        const standIn = await connectAs(nats, 'revocation');
        try {
          standIn.subscribe(subject, { queue: 'revocation', callback: (_, msg) => msg.respond(msg.data) });
          await standIn.flush();
          for (const service of SERVICES.filter((s) => s !== 'revocation')) {
            expect([service, await subscriptionRefused(clients[service], subject, 'revocation')]).toEqual([
              service,
              true,
            ]);
          }
          // Only in its queue group: a revocation replica cannot listen beside the others.
          expect(await subscriptionRefused(clients.revocation, subject)).toBe(true);
          for (const service of SERVICES.filter((s) => s !== 'revocation')) {
            const expected = service === 'issuance' ? 'answered' : 'refused';
            expect([service, await requestOutcome(clients[service], subject)]).toEqual([service, expected]);
          }
        } finally {
          await standIn.close();
        }
      });

      it("lets only revocation send the responder its CRLs' early announcements", async () => {
        const subject = 'ocsp-responder.crl-published';
        const standIn = await connectAs(nats, 'ocsp-responder');
        try {
          standIn.subscribe(subject, {
            queue: 'ocsp-responder',
            callback: (_, msg) => msg.respond(msg.data),
          });
          await standIn.flush();
          for (const service of SERVICES.filter((s) => s !== 'ocsp-responder')) {
            expect([service, await subscriptionRefused(clients[service], subject, 'ocsp-responder')]).toEqual(
              [service, true],
            );
            const expected = service === 'revocation' ? 'answered' : 'refused';
            expect([service, await requestOutcome(clients[service], subject)]).toEqual([service, expected]);
          }
        } finally {
          await standIn.close();
        }
      });

      it('lets issuance answer only requests it received: no publishing into another service inbox', async () => {
        expect(await requestOutcome(clients.issuance, '_INBOX.gateway.forged')).toBe('refused');
        expect(await requestOutcome(clients.revocation, '_INBOX.gateway.forged')).toBe('refused');
      });

      it('covers every event type and every request subject the code has: one that no user may send fails here', () => {
        expect([...ALL_EVENTS].sort()).toEqual([...Object.values(EventType)].sort());
        const subjects = [...Object.values(IssuancePattern), ...Object.values(AcmePattern)];
        const sendable = new Set([...ALL_REQUESTS, ...ALL_ACME_REQUESTS]);
        expect(subjects.filter((subject) => !sendable.has(subject))).toEqual([]);
      });

      it('lets each service publish only its own events (no forged crl.published, no forged revocation)', async () => {
        const codec = JSONCodec();
        for (const service of SERVICES) {
          const js = clients[service].jetstream();
          for (const type of ALL_EVENTS) {
            const refused = await jetStreamRefused(() =>
              js.publish(`ca.events.p03.${type}`, codec.encode({ forged: service }), { timeout: 2_000 }),
            );
            expect([service, type, refused]).toEqual([service, type, !MAY_PUBLISH[service].includes(type)]);
          }
        }
      });

      it('lets nobody but issuance create the streams, and nobody delete or purge them', async () => {
        for (const service of OTHERS) {
          const jsm = await clients[service].jetstreamManager();
          expect(
            await jetStreamRefused(() =>
              jsm.streams.add({ name: 'CA_EVENTS', subjects: ['ca.events.>'], storage: StorageType.File }),
            ),
          ).toBe(true);
          expect(await jetStreamRefused(() => jsm.streams.update('CA_EVENTS', { max_msgs: 1 }))).toBe(true);
        }
        for (const service of SERVICES) {
          const jsm = await clients[service].jetstreamManager();
          for (const stream of ['CA_EVENTS', 'OBJ_CA_EVENTS_BLOBS']) {
            expect([service, stream, await jetStreamRefused(() => jsm.streams.delete(stream))]).toEqual([
              service,
              stream,
              true,
            ]);
          }
          expect(await jetStreamRefused(() => jsm.streams.purge('CA_EVENTS'))).toBe(true);
          expect(
            await jetStreamRefused(() => jsm.streams.add({ name: 'ROGUE', subjects: ['rogue.>'] })),
          ).toBe(true);
        }
        expect(
          (await (await clients.issuance.jetstreamManager()).streams.info('CA_EVENTS')).config.name,
        ).toBe('CA_EVENTS');
      });

      it('lets each service create, read and ack only its own durable consumer, and nobody delete one', async () => {
        const durable = (name: string) => ({
          durable_name: name,
          ack_policy: AckPolicy.Explicit,
          filter_subject: 'ca.events.>',
        });
        for (const service of SERVICES) {
          const jsm = await clients[service].jetstreamManager();
          // The gateway publishes only and acme reads no events; the three others each read through their own durable.
          expect(await jetStreamRefused(() => jsm.consumers.add('CA_EVENTS', durable(service)))).toBe(
            service === 'gateway' || service === 'acme',
          );
          expect(
            await jetStreamRefused(() =>
              jsm.consumers.add('CA_EVENTS', {
                ...durable(`${service}-p07`),
                filter_subject: 'ca.events.p07.>',
              }),
            ),
          ).toBe(service === 'gateway' || service === 'acme');
          for (const other of SERVICES.filter((s) => s !== service)) {
            expect([
              service,
              other,
              await jetStreamRefused(() => jsm.consumers.add('CA_EVENTS', durable(other))),
            ]).toEqual([service, other, true]);
            expect(
              await requestOutcome(clients[service], `$JS.API.CONSUMER.MSG.NEXT.CA_EVENTS.${other}`),
            ).toBe('refused');
            expect(await requestOutcome(clients[service], `$JS.ACK.CA_EVENTS.${other}.1.1.1.1.0`)).toBe(
              'refused',
            );
            // Nor any of its partition consumers.
            expect(
              await requestOutcome(clients[service], `$JS.API.CONSUMER.MSG.NEXT.CA_EVENTS.${other}-p07`),
            ).toBe('refused');
            expect(
              await jetStreamRefused(() =>
                jsm.consumers.add('CA_EVENTS', {
                  ...durable(`${other}-p07`),
                  filter_subject: 'ca.events.p07.>',
                }),
              ),
            ).toBe(true);
          }
          for (const name of SERVICES) {
            expect(await jetStreamRefused(() => jsm.consumers.delete('CA_EVENTS', name))).toBe(true);
          }
          // An ephemeral consumer on the event stream would read every event: refused too.
          expect(
            await jetStreamRefused(() => jsm.consumers.add('CA_EVENTS', { ack_policy: AckPolicy.None })),
          ).toBe(true);
        }
      });

      it('lets nobody create a consumer on the blob store, whose deliver subject would bypass publish permissions', async () => {
        for (const service of SERVICES) {
          const jsm = await clients[service].jetstreamManager();
          // Delivered by the server, this would put stored bytes on issuance.certificate.revoke.
          const pushIntoIssuance = {
            deliver_subject: 'issuance.certificate.revoke',
            filter_subject: '$O.CA_EVENTS_BLOBS.M.>',
            ack_policy: AckPolicy.None,
          };
          expect([
            service,
            await jetStreamRefused(() => jsm.consumers.add('OBJ_CA_EVENTS_BLOBS', pushIntoIssuance)),
          ]).toEqual([service, true]);
          expect(
            await jetStreamRefused(() =>
              jsm.consumers.add('OBJ_CA_EVENTS_BLOBS', { ...pushIntoIssuance, durable_name: service }),
            ),
          ).toBe(true);
        }
      });

      it('logs every refusal on the server, naming the user or key', () => {
        const violations = nats.violations();
        expect(
          violations.some((line) =>
            line.includes(`Publish Violation - ${nats.principal('gateway')}, Subject "issuance.crl.sign"`),
          ),
        ).toBe(true);
        expect(
          violations.some((line) =>
            line.includes(`Subscription Violation - ${nats.principal('revocation')}, Subject ">"`),
          ),
        ).toBe(true);
      });
    },
  ),
);
