import { Migration } from '@mikro-orm/migrations';

export class Migration20261122050000_erp_document_ids_text extends Migration {
  override name = 'Migration20261122050000_erp_document_ids_text';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "erp_documents" alter column "erp_invoice_id" type text using ("erp_invoice_id"::text), alter column "invoice_reference" type text using ("invoice_reference"::text);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `alter table "erp_documents" alter column "erp_invoice_id" type varchar(255) using ("erp_invoice_id"::varchar(255)), alter column "invoice_reference" type varchar(255) using ("invoice_reference"::varchar(255));`,
    );
  }
}
