import { Migration } from '@mikro-orm/migrations';

/** A mailbox logs in with a password or over OAuth2 (its grant, token endpoint, client, scope and sealed secret). */
export class Migration20261129120000_mailbox_oauth2 extends Migration {
  override name = 'Migration20261129120000_mailbox_oauth2';

  override up(): void | Promise<void> {
    this.addSql(`alter table "fiscal_mailboxes" alter column "sealed_password" drop not null;`);
    this.addSql(
      `alter table "fiscal_mailboxes" add "oauth_grant" varchar(255) null, add "oauth_token_url" text null, add "oauth_client_id" varchar(255) null, add "oauth_scope" text null, add "sealed_oauth_secret" text null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "fiscal_mailboxes" where "sealed_password" is null;`);
    this.addSql(
      `alter table "fiscal_mailboxes" drop column "oauth_grant", drop column "oauth_token_url", drop column "oauth_client_id", drop column "oauth_scope", drop column "sealed_oauth_secret";`,
    );
    this.addSql(`alter table "fiscal_mailboxes" alter column "sealed_password" set not null;`);
  }
}
