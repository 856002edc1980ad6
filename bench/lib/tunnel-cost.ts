/**
 * What the gateway → acme tunnel costs per ACME request on its own: a request/reply over NATS
 * with an ACME request's size (a JWS of about 1 KiB, base64 in JSON, as the gateway sends it) and an
 * answer of an order's size, both ends in this process, one at a time. Wall time per round trip
 * and this process's CPU per round trip (both ends: encoding, decoding, the client library).
 */
import { connect, JSONCodec } from 'nats';
import { randomBytes } from 'node:crypto';
import { processCpuMs } from './process-cpu';

export interface TunnelCost {
  roundTrips: number;
  wallMsEach: number;
  cpuMsEach: number;
  /** The same encode/decode in process, without NATS: the base64 and JSON share. */
  codecCpuMsEach: number;
}

export async function measureTunnel(natsUrl: string, roundTrips = 2_000): Promise<TunnelCost> {
  const nc = await connect({ servers: natsUrl });
  const codec = JSONCodec<Record<string, unknown>>();
  const subject = `bench-tunnel.${randomBytes(4).toString('hex')}`;
  const body = randomBytes(1_100);
  const answer = randomBytes(900);
  const handle = (data: Uint8Array) => {
    const request = codec.decode(data);
    Buffer.from(String(request.body), 'base64');
    return codec.encode({
      status: 200,
      headers: { 'replay-nonce': randomBytes(33).toString('base64url'), 'content-type': 'application/json' },
      body: answer.toString('base64'),
    });
  };
  const sub = nc.subscribe(subject, { callback: (_err, msg) => msg.respond(handle(msg.data)) });
  const request = () =>
    codec.encode({
      tenantId: '0b9d5c4e-5f4a-4d61-9a43-2f7b1c0e8a11',
      method: 'POST',
      path: '/order/0b9d5c4e-5f4a-4d61-9a43-2f7b1c0e8a11/finalize',
      contentType: 'application/jose+json',
      body: body.toString('base64'),
      clientAddress: '127.0.0.1',
    });
  for (let i = 0; i < 200; i++) await nc.request(subject, request(), { timeout: 5_000 });
  const cpu0 = processCpuMs(process.pid) ?? NaN;
  const t0 = performance.now();
  for (let i = 0; i < roundTrips; i++) {
    const reply = await nc.request(subject, request(), { timeout: 5_000 });
    Buffer.from(String(codec.decode(reply.data).body), 'base64');
  }
  const wall = performance.now() - t0;
  const cpu = (processCpuMs(process.pid) ?? NaN) - cpu0;
  sub.unsubscribe();
  await nc.close();
  const c0 = processCpuMs(process.pid) ?? NaN;
  const n = roundTrips * 5;
  for (let i = 0; i < n; i++) {
    const reply = handle(request());
    Buffer.from(String(codec.decode(reply).body), 'base64');
  }
  const codecCpu = (processCpuMs(process.pid) ?? NaN) - c0;
  return {
    roundTrips,
    wallMsEach: wall / roundTrips,
    cpuMsEach: cpu / roundTrips,
    codecCpuMsEach: codecCpu / n,
  };
}
