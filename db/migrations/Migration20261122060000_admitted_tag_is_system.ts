import { Migration } from '@mikro-orm/migrations';

/** `admitido` is the system tag whatever created it: a company's own tag of that name becomes it. */
export class Migration20261122060000_admitted_tag_is_system extends Migration {
  override name = 'Migration20261122060000_admitted_tag_is_system';

  override up(): void | Promise<void> {
    this.addSql(`update "tags" set "is_system" = true where "normalized_name" = 'admitido' and not "is_system";`);
  }

  override down(): void | Promise<void> {}
}
