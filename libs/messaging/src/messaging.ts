import { ClientProxy, MicroserviceOptions } from '@nestjs/microservices';
import { ConnectionOptions, NatsConnection, connect, nkeyAuthenticator } from 'nats';
import { BlobStore, InProcessBlobStore, JetStreamBlobStore } from './blobs/blob-store';
import { EventBus } from './events/event-bus';
import { InProcessEventBus } from './events/in-process.event-bus';
import { StreamRole, WaitReporter } from './events/stream-setup';
import { JetStreamEventBus } from './events/jetstream.event-bus';
import { InProcessClient } from './rpc/in-process.client';
import { InProcessRegistry } from './rpc/in-process.registry';
import { InProcessServer } from './rpc/in-process.server';
import { BinaryReplyDeserializer, BinaryReplySerializer } from './rpc/binary-reply.nats';
import { NamespacedClientNats, NamespacedServerNats } from './rpc/namespaced-nats';
import { DEFAULT_RPC_TIMEOUT_MS, RpcApi, RpcClient } from './rpc/rpc-client';

export interface MessagingOptions {
  /** Real NATS with JetStream; unset means the in-process transport of embedded mode. */
  natsUrl?: string;
  /** Where the in-process event stream is kept (embedded mode only). */
  databaseUrl?: string;
  streamName?: string;
  subjectPrefix?: string;
  /**
   * Prefix of request/reply subjects on NATS; empty in production, unique per test suite. Must lie
   * outside `subjectPrefix`, whose subjects the event stream captures.
   */
  rpcSubjectPrefix?: string;
  rpcTimeoutMs?: number;
  /** Client name shown by NATS monitoring. */
  name?: string;
  /** The service's own NATS user and password; unset: as `natsUrl` says. */
  user?: string;
  pass?: string;
  /**
   * The service's NKey seed (`SU…`): it signs the server's challenge, and the seed never leaves
   * the process. Takes the place of `user`/`pass`.
   */
  nkeySeed?: string;
  /** Prefix of this connection's reply subjects (`_INBOX.<app>`), which only its user may read. */
  inboxPrefix?: string;
  /** PEM file of the CA the NATS server's certificate must chain to (`tls://` URLs). */
  tlsCaFile?: string;
  /** How long JetStream keeps events (the stream's max_age; see EventRetention). */
  eventRetentionMs?: number;
  /** How long a blob is kept at most (BLOB_TTL; default BLOB_TTL_MS). */
  blobTtlMs?: number;
  /**
   * 'owner' (issuance) creates the streams and restores their settings at every start; 'user'
   * (default) waits for them when it may not create them (StreamRole).
   */
  streamRole?: StreamRole;
  /** Told what the start-up waits for, for the log and `/health/ready`. */
  report?: WaitReporter;
  /**
   * Reads blobs only (gateway, acme: large replies): it never writes or deletes one, which its
   * NATS user may not (blobs expire with the store's TTL).
   */
  blobsReadOnly?: boolean;
  /**
   * The in-process transport's database is this process's alone (embedded PGlite): no other
   * process publishes events or holds a claim on them (InProcessEventBus `ownDatabase`).
   */
  ownDatabase?: boolean;
}

/**
 * The transport choice, made once per process: request/reply and durable events over NATS
 * (JetStream) or in process. Nothing else in the code knows which one it got.
 */
export interface Messaging {
  readonly kind: 'nats' | 'in-process';
  readonly events: EventBus;
  /** Large payloads beside a request (see BlobStore). */
  readonly blobs: BlobStore;
  /** Options for `NestFactory.createMicroservice`/`connectMicroservice`; `queue` balances replicas. */
  serverOptions(queue: string): MicroserviceOptions;
  rpcClient<Api extends RpcApi>(): RpcClient<Api>;
  close(): Promise<void>;
}

export const DEFAULT_STREAM = 'CA_EVENTS';
export const DEFAULT_SUBJECT_PREFIX = 'ca.events';

export async function openMessaging(options: MessagingOptions): Promise<Messaging> {
  const timeoutMs = options.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  if (options.natsUrl) return openNatsMessaging(options.natsUrl, options, timeoutMs);
  if (!options.databaseUrl) throw new Error('in-process messaging needs the embedded database URL');
  const registry = new InProcessRegistry();
  const events = await InProcessEventBus.open(options.databaseUrl, { ownDatabase: options.ownDatabase });
  const blobs = await InProcessBlobStore.open(events.pool, options.blobTtlMs);
  return {
    kind: 'in-process',
    events,
    blobs,
    serverOptions: () => ({ strategy: new InProcessServer(registry) }),
    rpcClient: <Api extends RpcApi>() => new RpcClient<Api>(new InProcessClient(registry), timeoutMs, blobs),
    close: () => events.close(),
  };
}

/**
 * One set of options for every connection of the process (events, blobs, Nest's client and
 * server), so all of them use the same user, inbox prefix and TLS trust.
 */
export function natsConnectionOptions(url: string, options: MessagingOptions): ConnectionOptions {
  return {
    servers: url.split(',').map((s) => s.trim()),
    // Reconnect forever: a NATS restart must not take a service down (outbox and durable consumers catch up).
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    ...(options.nkeySeed !== undefined
      ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(options.nkeySeed)) }
      : options.user !== undefined
        ? { user: options.user, pass: options.pass }
        : {}),
    ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
    ...(options.tlsCaFile ? { tls: { caFile: options.tlsCaFile } } : {}),
  };
}

async function openNatsMessaging(
  url: string,
  options: MessagingOptions,
  timeoutMs: number,
): Promise<Messaging> {
  const connection = natsConnectionOptions(url, options);
  const nc: NatsConnection = await connect({ ...connection, name: options.name });
  const events = await JetStreamEventBus.connect(nc, {
    streamName: options.streamName ?? DEFAULT_STREAM,
    subjectPrefix: options.subjectPrefix ?? DEFAULT_SUBJECT_PREFIX,
    maxAgeMs: options.eventRetentionMs,
    streamRole: options.streamRole,
    report: options.report,
  });
  const rpcPrefix = options.rpcSubjectPrefix ?? '';
  const blobs = await JetStreamBlobStore.open(
    nc,
    `${options.streamName ?? DEFAULT_STREAM}_BLOBS`,
    options.blobTtlMs,
    { role: options.streamRole, report: options.report, readOnly: options.blobsReadOnly },
  );
  return {
    kind: 'nats',
    events,
    blobs,
    serverOptions: (queue) => ({
      strategy: new NamespacedServerNats(
        { ...connection, queue, gracePeriod: 2_000, serializer: new BinaryReplySerializer() },
        rpcPrefix,
      ),
    }),
    rpcClient: <Api extends RpcApi>() =>
      new RpcClient<Api>(
        new NamespacedClientNats(
          { ...connection, deserializer: new BinaryReplyDeserializer() },
          rpcPrefix,
        ) as unknown as ClientProxy,
        timeoutMs,
        blobs,
      ),
    close: async () => {
      await events.close();
      await nc.drain();
    },
  };
}
