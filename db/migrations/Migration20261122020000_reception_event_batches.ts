import { Migration } from '@mikro-orm/migrations';

export class Migration20261122020000_reception_event_batches extends Migration {
  override name = 'Migration20261122020000_reception_event_batches';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "reception_event_batches" ("id" uuid not null, "company_id" uuid not null, "event_ids" uuid[] not null, "resubmitted_ids" uuid[] not null, "timing" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "reception_event_batches_created_at_index" on "reception_event_batches" ("created_at");`);
    this.addSql(
      `alter table "reception_event_batches" add constraint "reception_event_batches_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(`alter table "reception_events" drop constraint "reception_events_company_id_foreign";`);
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "reception_events" add constraint "reception_events_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(`drop table if exists "reception_event_batches" cascade;`);
  }
}
