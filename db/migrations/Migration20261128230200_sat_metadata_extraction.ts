import { Migration } from '@mikro-orm/migrations';

/** A Mexican sync also asks SAT for the metadata of the company's received CFDI: its extraction's id. */
export class Migration20261128230200_sat_metadata_extraction extends Migration {
  override name = 'Migration20261128230200_sat_metadata_extraction';

  override up(): void | Promise<void> {
    this.addSql(`alter table "fiscal_sync_runs" add "metadata_extraction_id" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "fiscal_sync_runs" drop column "metadata_extraction_id";`);
  }
}
