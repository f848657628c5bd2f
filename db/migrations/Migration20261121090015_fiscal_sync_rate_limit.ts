import { Migration } from '@mikro-orm/migrations';

export class Migration20261121090015_fiscal_sync_rate_limit extends Migration {
  override name = 'Migration20261121090015_fiscal_sync_rate_limit';

  override up(): void | Promise<void> {
    this.addSql(`alter table "fiscal_credentials" add "last_sync_started_at" timestamptz null;`);

    this.addSql(
      `alter table "fiscal_sync_runs" add "entries_skipped" int not null default 0, add "details" jsonb null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "fiscal_credentials" drop column "last_sync_started_at";`);

    this.addSql(`alter table "fiscal_sync_runs" drop column "entries_skipped", drop column "details";`);
  }
}
