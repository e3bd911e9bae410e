import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail as it reached the server, parsed just enough for tests: headers, and the text and HTML parts. */
export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO). */
  to: string[];
  raw: string;
  /** Header names in lower case; values unfolded, encoded words decoded; the first of repeated headers. */
  headers: Map<string, string>;
  subject: string;
  text: string | null;
  html: string | null;
}

/** A real SMTP server on 127.0.0.1 (smtp-server), which can be stopped and started again on the same port. */
export interface FakeSmtp {
  url: string;
  received: ReceivedMail[];
  /** Closes the port: connections are refused until `start()`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** The next `count` mails are refused with this SMTP reply code (e.g. 550) after RCPT TO. */
  refuseNext(count: number, code: number): void;
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const refusals: number[] = [];
  let port = 0;
  let server: SMTPServer | null = null;

  function create(): SMTPServer {
    return new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      // Pooled client connections are cut at once when the test stops the server.
      closeTimeout: 50,
      onRcptTo(_address, _session, callback) {
        const code = refusals.shift();
        if (code === undefined) return callback();
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: code }));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, ...parseMail(raw) });
          callback();
        });
      },
    });
  }

  async function start(): Promise<void> {
    const s = create();
    await new Promise<void>((resolve, reject) => {
      s.server.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        s.server.off('error', reject);
        resolve();
      });
    });
    port = (s.server.address() as AddressInfo).port;
    server = s;
  }

  async function stop(): Promise<void> {
    const s = server;
    server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  await start();
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    start,
    stop,
    refuseNext(count, code) {
      for (let i = 0; i < count; i++) refusals.push(code);
    },
    close: stop,
  };
}

// A minimal RFC 5322 / MIME reader: what nodemailer writes (multipart/alternative, quoted-printable or base64, UTF-8).

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  return at === -1 ? { head: raw, body: '' } : { head: raw.slice(0, at), body: raw.slice(at + 4) };
}

function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

function parseHeaders(head: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, decodeWords(line.slice(colon + 1).trim()));
  }
  return headers;
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const source = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < source.length; i++) {
    const hex = source.slice(i + 1, i + 3);
    if (source[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(source[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '7bit').toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    default:
      return body;
  }
}

function parts(raw: string): { type: string; content: string }[] {
  const { head, body } = splitHead(raw);
  const headers = parseHeaders(head);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.toLowerCase().startsWith('multipart/') || !boundary) {
    return [{ type: type.split(';')[0]!.trim().toLowerCase(), content: decodeBody(body, headers.get('content-transfer-encoding')) }];
  }
  const sections = body.split(`--${boundary}`).slice(1);
  return sections.filter((s) => !s.startsWith('--')).flatMap((s) => parts(s.replace(/^\r\n/, '').replace(/\r\n$/, '')));
}

export function parseMail(raw: string): Omit<ReceivedMail, 'to' | 'raw'> {
  const headers = parseHeaders(splitHead(raw).head);
  const all = parts(raw);
  return {
    headers,
    subject: headers.get('subject') ?? '',
    text: all.find((p) => p.type === 'text/plain')?.content ?? null,
    html: all.find((p) => p.type === 'text/html')?.content ?? null,
  };
}
