import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db.ts';

export interface Mail {
  to: string;
  kind: 'invite' | 'reset' | 'confirm';
  subject: string;
  body: string;
  link: string;
}

/** Mails go to the outbox table (a sender process would deliver them); demo mode logs the link. */
export async function sendMail(db: Db, mail: Mail, opts: { log?: FastifyBaseLogger; logLinks: boolean }) {
  await db.query('insert into outbox (to_email, kind, subject, body, link) values ($1, $2, $3, $4, $5)', [mail.to, mail.kind, mail.subject, mail.body, mail.link]);
  if (opts.logLinks) opts.log?.info({ mailTo: mail.to, kind: mail.kind }, `mail to ${mail.to}: ${mail.subject} ${mail.link}`);
}
