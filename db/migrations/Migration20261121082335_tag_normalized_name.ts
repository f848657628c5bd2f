import { Migration } from '@mikro-orm/migrations';

export class Migration20261121082335_tag_normalized_name extends Migration {
  override name = 'Migration20261121082335_tag_normalized_name';

  override up(): void | Promise<void> {
    this.addSql(`alter table "tags" drop constraint "tags_company_id_name_unique";`);
    // Existing tags get their lower-cased name before the column becomes required.
    this.addSql(`alter table "tags" add "normalized_name" varchar(255) null;`);
    this.addSql(`update "tags" set "normalized_name" = lower(trim("name"));`);
    this.addSql(`alter table "tags" alter column "normalized_name" set not null;`);
    this.addSql(
      `alter table "tags" add constraint "tags_company_id_normalized_name_unique" unique ("company_id", "normalized_name");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "tags" drop constraint "tags_company_id_normalized_name_unique";`);
    this.addSql(`alter table "tags" drop column "normalized_name";`);
    this.addSql(`alter table "tags" add constraint "tags_company_id_name_unique" unique ("company_id", "name");`);
  }
}
