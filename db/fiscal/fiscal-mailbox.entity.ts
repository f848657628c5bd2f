import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/**
 * The IMAP mailbox a Colombian company's DIAN e-mail arrives in: where it is, how to log in (a password, or OAuth2
 * credentials the product obtains access tokens with; either secret sealed under the service's secret key), which
 * folder to read, and the folder imported messages are moved to. A mailbox has a password or OAuth2, never both.
 */
export const FiscalMailbox = defineEntity({
  name: 'FiscalMailbox',
  tableName: 'fiscal_mailboxes',
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company).unique(),
    host: p.string(),
    port: p.integer(),
    /** Implicit TLS (993); false is a plain connection that still upgrades with STARTTLS when the server offers it. */
    tls: p.boolean(),
    username: p.string(),
    /** Null when the mailbox logs in over OAuth2. */
    sealedPassword: p.text().lazy().nullable(),
    /** `client_credentials` (an app registration: Microsoft 365) or `jwt_bearer` (a service account: Google); null with a password. */
    oauthGrant: p.string().nullable(),
    oauthTokenUrl: p.text().nullable(),
    /** The app's client id, or the service account's e-mail. */
    oauthClientId: p.string().nullable(),
    oauthScope: p.text().nullable(),
    /** The client secret, or the service account's private key (PEM). */
    sealedOauthSecret: p.text().lazy().nullable(),
    folder: p.string().default('INBOX'),
    /** Where a message goes once its documents are imported (created when missing). */
    importedFolder: p.string().default('Imported'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type FiscalMailbox = InferEntity<typeof FiscalMailbox>;
