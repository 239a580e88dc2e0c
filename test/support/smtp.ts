import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { eventually } from './wait';

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`: give it to the server under test as SMTP_URL. */
  url: string;
  /** Every message delivered so far, parsed, in arrival order. */
  messages: ParsedMail[];
  /** Waits until a delivered message matches (fails the test when none does in time). */
  waitFor(match: (m: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>;
  /** Makes the next `n` deliveries fail with a 451 (temporary failure), to test retries. */
  failNext(n: number): void;
  close(): Promise<void>;
}

/** A real SMTP server (the `smtp-server` package) on a loopback ephemeral port that keeps what it receives. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          const err = Object.assign(new Error('try again later'), { responseCode: 451 });
          return callback(err);
        }
        simpleParser(Buffer.concat(chunks)).then((m) => {
          messages.push(m);
          callback();
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(match, timeoutMs = 20000) {
      const found = await eventually(async () => messages.find(match), (m) => m !== undefined, timeoutMs);
      return found!;
    },
    failNext(n) {
      failures = n;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
