import { Migration } from '@mikro-orm/migrations';

/** What advances crossed on a payable: it counts as paid once the ERP registers the crossing. */
export class Migration20261128230400_advance_crossings extends Migration {
  override name = 'Migration20261128230400_advance_crossings';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payables" add "crossed_cents" bigint not null default '0';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payables" drop column "crossed_cents";`);
  }
}
