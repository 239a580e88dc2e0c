import pino from 'pino';
import { Writable } from 'node:stream';
import { loadConfig } from '../../config/src/config';
import { openMailer } from '../src/mailer';
import { startSmtpSink, type SmtpSink } from '../../../test/support/smtp';

describe('mailer', () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(() => sink.close());

  it('delivers through a real SMTP server with the Message-ID it is given', async () => {
    const mailer = openMailer(loadConfig({}, { SMTP_URL: sink.url, MAIL_FROM: 'Cloud <noreply@example.test>' }), pino({ level: 'silent' }));
    await mailer.send({ to: 'a@example.test', subject: 'Hello', text: 'link: https://x/invites/secret', messageId: '<evt-1@cloud.invalid>' });
    const m = await sink.waitFor((x) => x.subject === 'Hello');
    expect(m.messageId).toBe('<evt-1@cloud.invalid>');
    expect(m.text?.trim()).toBe('link: https://x/invites/secret');
    expect(m.from?.text).toContain('noreply@example.test');
    mailer.close();
  });

  it('a temporary SMTP failure rejects the send, so the caller retries', async () => {
    const mailer = openMailer(loadConfig({}, { SMTP_URL: sink.url }), pino({ level: 'silent' }));
    sink.failNext(1);
    await expect(mailer.send({ to: 'b@example.test', subject: 'Retry', text: 't', messageId: '<evt-2@cloud.invalid>' })).rejects.toThrow();
    await mailer.send({ to: 'b@example.test', subject: 'Retry', text: 't', messageId: '<evt-2@cloud.invalid>' });
    await sink.waitFor((x) => x.subject === 'Retry');
    expect(sink.messages.filter((x) => x.subject === 'Retry')).toHaveLength(1);
    mailer.close();
  });

  it('without SMTP_URL writes the log text, never the secret text', async () => {
    let out = '';
    const logger = pino({ level: 'info' }, new Writable({ write: (c, _e, cb) => ((out += c.toString()), cb()) }));
    const mailer = openMailer(loadConfig({}, {}), logger);
    expect(mailer.kind).toBe('log');
    await mailer.send({ to: 'c@example.test', subject: 'Invite', text: 'https://x/invites/tok_SECRET', logText: 'https://x/invites/tok_…', messageId: '<evt-3@cloud.invalid>' });
    expect(out).toContain('c@example.test');
    expect(out).not.toContain('tok_SECRET');
  });
});
