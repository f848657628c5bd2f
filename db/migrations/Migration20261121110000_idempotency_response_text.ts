import { Migration } from '@mikro-orm/migrations';

export class Migration20261121110000_idempotency_response_text extends Migration {
  override name = 'Migration20261121110000_idempotency_response_text';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_keys" alter column "response_body" type text using ("response_body"::text);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "idempotency_keys" where "response_body" like '%\\u0000%';`);
    this.addSql(
      `alter table "idempotency_keys" alter column "response_body" type jsonb using ("response_body"::jsonb);`,
    );
  }
}
