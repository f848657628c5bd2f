import { Migration } from '@mikro-orm/migrations';

export class Migration20261121170000_webhook_delivery_lease extends Migration {
  override name = 'Migration20261121170000_webhook_delivery_lease';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" add column "sending_until" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop column "sending_until";`);
  }
}
