import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';

/**
 * A minimal Discord gateway on 127.0.0.1: HELLO, IDENTIFY answered with READY
 * (no guilds), heartbeats acknowledged, and dispatches pushed on demand.
 * Plain JSON, no compression (zlib-sync is not installed).
 */
export interface FakeGateway {
  url: string;
  /** The IDENTIFY payloads received. */
  identifies: any[];
  /** Resolves once a client identified and was sent READY. */
  ready: Promise<void>;
  dispatch(event: string, data: unknown): void;
  close(): Promise<void>;
}

export async function startFakeGateway(applicationId: string): Promise<FakeGateway> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  const identifies: any[] = [];
  let sequence = 0;
  let current: WebSocket | null = null;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const send = (socket: WebSocket, op: number, d: unknown, t: string | null = null) => socket.send(JSON.stringify({ op, d, s: t ? ++sequence : null, t }));

  wss.on('connection', (socket) => {
    current = socket;
    send(socket, 10, { heartbeat_interval: 41_250 });
    socket.on('message', (raw) => {
      const packet = JSON.parse(String(raw)) as { op: number; d: any };
      if (packet.op === 1) send(socket, 11, null);
      if (packet.op === 2) {
        identifies.push(packet.d);
        send(
          socket,
          0,
          {
            v: 10,
            user: { id: '900000000000000002', username: 'statusbot', discriminator: '0', global_name: null, avatar: null, bot: true },
            guilds: [],
            session_id: 'fake-session',
            resume_gateway_url: url,
            shard: [0, 1],
            application: { id: applicationId, flags: 0 },
          },
          'READY',
        );
        markReady();
      }
    });
  });

  return {
    url,
    identifies,
    ready,
    dispatch(event, data) {
      if (!current) throw new Error('no client is connected to the fake gateway');
      send(current, 0, data, event);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
