import type pino from 'pino';
import nodemailer from 'nodemailer';
import type { AppConfig } from '../../config/src/config';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * A stable id derived from the event that caused the mail (e.g. `<event-id@cloud.invalid>`): a
   * process manager that retries after a crash sends the same Message-ID, so receivers can dedupe.
   */
  messageId: string;
  /** The Message-ID this mail answers (a thread's first mail): sent as In-Reply-To and References, so mail clients thread it. */
  inReplyTo?: string;
  /** The text as it may be logged when no SMTP server is configured: without one-time secrets (invitation tokens). */
  logText?: string;
}

/** The outbound mail port: SMTP through nodemailer, or the log when SMTP_URL is unset (the embedded default). */
export interface Mailer {
  readonly kind: 'smtp' | 'log';
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function openMailer(config: AppConfig, logger: pino.Logger): Mailer {
  const from = config.mail.from;
  if (!config.mail.smtpUrl) {
    return {
      kind: 'log',
      async send(m) {
        // The one-time secret part of a link never reaches the log: callers give `logText` for that.
        logger.info({ mail: { to: m.to, subject: m.subject, messageId: m.messageId, text: m.logText ?? m.text } }, 'mail (SMTP_URL unset: logged, not sent)');
      },
      close() {},
    };
  }
  const transport = nodemailer.createTransport(config.mail.smtpUrl);
  return {
    kind: 'smtp',
    async send(m) {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, html: m.html, messageId: m.messageId, ...(m.inReplyTo ? { inReplyTo: m.inReplyTo, references: [m.inReplyTo] } : {}) });
    },
    close() {
      transport.close();
    },
  };
}
