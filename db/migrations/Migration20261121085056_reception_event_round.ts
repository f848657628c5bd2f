import { Migration } from '@mikro-orm/migrations';

export class Migration20261121085056_reception_event_round extends Migration {
  override name = 'Migration20261121085056_reception_event_round';

  override up(): void | Promise<void> {
    this.addSql(`alter table "reception_events" add "round" int not null default 1;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "reception_events" drop column "round";`);
  }
}
