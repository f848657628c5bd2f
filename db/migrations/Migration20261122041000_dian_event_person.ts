import { Migration } from '@mikro-orm/migrations';

export class Migration20261122041000_dian_event_person extends Migration {
  override name = 'Migration20261122041000_dian_event_person';

  override up(): void | Promise<void> {
    this.addSql(`alter table "fiscal_credentials" add column "dian_event_person" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "fiscal_credentials" drop column "dian_event_person";`);
  }
}
