import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

export type FakeRecords = Partial<Record<'A' | 'AAAA' | 'CNAME' | 'MX' | 'NS' | 'TXT', string[]>>;

/**
 * A DNS server on 127.0.0.1 (UDP) answering from `zone`, which a test may
 * change: a name missing from it is NXDOMAIN, a type missing is an empty answer;
 * `silent` drops every query (a resolver that does not answer).
 */
export interface FakeDnsServer {
  /** `127.0.0.1:port`, as a monitor's `dns_server` names it. */
  address: string;
  zone: Map<string, FakeRecords>;
  silent: boolean;
  queries: { name: string; type: string }[];
  close(): Promise<void>;
}

const TYPES: Record<number, keyof FakeRecords> = { 1: 'A', 2: 'NS', 5: 'CNAME', 15: 'MX', 16: 'TXT', 28: 'AAAA' };

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
}

function ipv6(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  for (const [i, g] of groups.entries()) out.writeUInt16BE(parseInt(g, 16), i * 2);
  return out;
}

function rdata(type: keyof FakeRecords, value: string): Buffer {
  switch (type) {
    case 'A':
      return Buffer.from(value.split('.').map(Number));
    case 'AAAA':
      return ipv6(value);
    case 'CNAME':
    case 'NS':
      return encodeName(value);
    case 'MX': {
      const [preference, exchange] = value.split(' ');
      const pref = Buffer.alloc(2);
      pref.writeUInt16BE(Number(preference));
      return Buffer.concat([pref, encodeName(exchange!)]);
    }
    case 'TXT':
      return Buffer.concat([Buffer.from([Buffer.byteLength(value)]), Buffer.from(value)]);
  }
}

export async function startFakeDnsServer(zone: Record<string, FakeRecords> = {}): Promise<FakeDnsServer> {
  const socket = createSocket('udp4');
  const server: FakeDnsServer = {
    address: '',
    zone: new Map(Object.entries(zone)),
    silent: false,
    queries: [],
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (query, peer) => {
    let offset = 12;
    const labels: string[] = [];
    while (query[offset]! > 0) {
      labels.push(query.subarray(offset + 1, offset + 1 + query[offset]!).toString());
      offset += query[offset]! + 1;
    }
    const questionEnd = offset + 5;
    const qtype = query.readUInt16BE(offset + 1);
    const name = labels.join('.').toLowerCase();
    const type = TYPES[qtype];
    server.queries.push({ name, type: type ?? String(qtype) });
    if (server.silent) return;
    const records = server.zone.get(name);
    const values = records && type ? (records[type] ?? []) : [];
    const answers = values.map((value) => {
      const data = rdata(type!, value);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // the name, pointing at the question's
      fixed.writeUInt16BE(qtype, 2);
      fixed.writeUInt16BE(1, 4);
      fixed.writeUInt32BE(60, 6);
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180 | (records ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  server.address = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return server;
}
