import { Migration } from '@mikro-orm/migrations';

export class Migration20261121083958_webhook_delivery_body extends Migration {
  override name = 'Migration20261121083958_webhook_delivery_body';

  override up(): void | Promise<void> {
    // Rows from before keep their payload; their body becomes its JSON text.
    this.addSql(`alter table "webhook_deliveries" add "subject_id" varchar(255) null, add "body" text null;`);
    this.addSql(`update "webhook_deliveries" set "body" = "payload"::text;`);
    this.addSql(`alter table "webhook_deliveries" alter column "body" set not null;`);
    this.addSql(
      `create index "webhook_deliveries_company_id_subject_id_event_index" on "webhook_deliveries" ("company_id", "subject_id", "event");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhook_deliveries_company_id_subject_id_event_index";`);
    this.addSql(`alter table "webhook_deliveries" drop column "subject_id", drop column "body";`);
  }
}
