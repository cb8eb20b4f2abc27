/**
 * A loopback proxy in front of the emulator that fails chosen requests itself, by what they ask
 * (their path and body): it holds them unanswered, or answers them with a status of its own; every
 * other request goes through. How a service that alone fails some rows ("poison" rows) looks.
 */
import { createServer, request as forward } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does with a request: hold it, answer it itself, or (undefined) forward it. */
export type PoisonAnswer = 'hold' | { readonly status: number; readonly body: string } | undefined;

export interface PoisonProxy {
  /** Its address, as GEOBATCH_EMULATOR_URL. */
  readonly url: string;
  /** How many requests it held. */
  held(): number;
  close(): Promise<void>;
}

export async function startPoisonProxy(
  target: URL,
  answer: (text: string) => PoisonAnswer,
): Promise<PoisonProxy> {
  const sockets = new Set<Socket>();
  let held = 0;
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const chosen = answer(`${req.url ?? ''}${body.toString('utf8')}`);
      if (chosen === 'hold') {
        held++;
        return;
      }
      if (chosen !== undefined) {
        res.writeHead(chosen.status, { 'content-type': 'application/json' });
        res.end(chosen.body);
        return;
      }
      const out = forward(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answered) => {
          res.writeHead(answered.statusCode ?? 502, answered.headers);
          answered.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  proxy.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    held: () => held,
    async close() {
      // Held requests keep their sockets open: closed here, or close() would wait for them.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
