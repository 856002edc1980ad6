import { Socket, connect } from 'node:net';

/** A TCP connection held open until the server closes it; `closed` resolves with that time. */
export interface HeldSocket {
  socket: Socket;
  closed: Promise<number>;
}

/**
 * Opens a connection (from `localAddress`, a loopback address standing for another client) and
 * either sends nothing (idle) or, as a slowloris, a request head that never ends: one more header
 * line every 300 ms.
 */
export async function holdSocket(url: string, slowloris = false, localAddress?: string): Promise<HeldSocket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ port: Number(port), host: hostname, localAddress });
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())));
  await new Promise((resolve) => socket.once('connect', resolve));
  if (slowloris) {
    socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n');
    const timer = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 300);
    void closed.then(() => clearInterval(timer));
  }
  return { socket, closed };
}
