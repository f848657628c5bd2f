import { Migration } from '@mikro-orm/migrations';

/** What an imported fiscal file says, as a digest: a later file with its fiscal reference is compared with it. */
export class Migration20261129003500_document_content_hash extends Migration {
  override name = 'Migration20261129003500_document_content_hash';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add "content_hash" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "documents" drop column "content_hash";`);
  }
}
