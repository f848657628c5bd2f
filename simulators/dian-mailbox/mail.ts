// Writes e-mails the way a supplier's invoicing system sends them (multipart/mixed, base64 attachments) and delivers
// them into a Maildir the way a mail agent does (written in tmp/, then renamed into new/, the delivery time as mtime).
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export interface OutgoingMail {
  from?: string;
  subject?: string;
  /** When the mail arrives (the file's mtime); default now. */
  receivedAt?: Date;
  attachments: { name: string; data: Uint8Array | string; contentType?: string }[];
  text?: string;
}

const wrap = (base64: string) => base64.replace(/.{1,76}/g, '$&\r\n');

/** An RFC 5322 message with the attachments, base64-encoded. */
export function buildMail(mail: OutgoingMail): Uint8Array {
  const boundary = `=_ap_${randomBytes(12).toString('hex')}`;
  const date = (mail.receivedAt ?? new Date()).toUTCString().replace('GMT', '+0000');
  const lines = [
    `From: ${mail.from ?? 'Facturación Electrónica <facturacion@proveedor.example.co>'}`,
    'To: facturas@empresa.example.co',
    `Subject: =?UTF-8?B?${Buffer.from(mail.subject ?? '900123456;PROVEEDOR DE EJEMPLO;SETP990000008;01;EMPRESA', 'utf8').toString('base64')}?=`,
    `Date: ${date}`,
    `Message-ID: <${randomBytes(8).toString('hex')}@proveedor.example.co>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=UTF-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    mail.text ?? 'Adjuntamos la factura electrónica.',
  ];
  for (const attachment of mail.attachments) {
    const data =
      typeof attachment.data === 'string' ? Buffer.from(attachment.data, 'utf8') : Buffer.from(attachment.data);
    lines.push(
      `--${boundary}`,
      `Content-Type: ${attachment.contentType ?? (attachment.name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream')}; name="${attachment.name}"`,
      `Content-Disposition: attachment; filename="${attachment.name}"`,
      'Content-Transfer-Encoding: base64',
      '',
      wrap(data.toString('base64')).trimEnd(),
    );
  }
  lines.push(`--${boundary}--`, '');
  return new TextEncoder().encode(lines.join('\r\n'));
}

/** Delivers a message to a company's Maildir (`<dir>/<companyRef>/new/`); returns the file's path. */
export function deliverMail(mailboxDir: string, companyId: string, mail: OutgoingMail): string {
  // The reference comes from a URL: it must name one folder directly inside the mailbox, never a path out of it.
  const root = resolve(mailboxDir, companyId.toLowerCase());
  if (dirname(root) !== resolve(mailboxDir) || basename(root) !== companyId.toLowerCase())
    throw new RangeError(`Not a company folder of the mailbox: ${JSON.stringify(companyId)}`);
  for (const folder of ['tmp', 'new', 'cur']) mkdirSync(join(root, folder), { recursive: true });
  const receivedAt = mail.receivedAt ?? new Date();
  const name = `${Math.floor(receivedAt.getTime() / 1000)}.M${randomBytes(6).toString('hex')}P${process.pid}.${hostname().replace(/[/:]/g, '_')}`;
  const temporary = join(root, 'tmp', name);
  writeFileSync(temporary, buildMail(mail));
  utimesSync(temporary, receivedAt, receivedAt);
  const delivered = join(root, 'new', name);
  renameSync(temporary, delivered);
  return delivered;
}
