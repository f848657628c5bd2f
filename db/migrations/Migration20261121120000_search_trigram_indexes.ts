import { Migration } from '@mikro-orm/migrations';

export class Migration20261121120000_search_trigram_indexes extends Migration {
  override name = 'Migration20261121120000_search_trigram_indexes';

  override up(): void | Promise<void> {
    // Text search (`search=` on payments and documents) is ILIKE '%…%': only trigram indexes serve it.
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create index "beneficiaries_name_trgm_index" on "beneficiaries" using gin ("name" gin_trgm_ops);`);
    this.addSql(
      `create index "beneficiaries_identifier_number_trgm_index" on "beneficiaries" using gin ("identifier_number" gin_trgm_ops);`,
    );
    this.addSql(`create index "payables_concept_trgm_index" on "payables" using gin ("concept" gin_trgm_ops);`);
    this.addSql(
      `create index "documents_document_number_trgm_index" on "documents" using gin ("document_number" gin_trgm_ops);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "documents_document_number_trgm_index";`);
    this.addSql(`drop index "payables_concept_trgm_index";`);
    this.addSql(`drop index "beneficiaries_identifier_number_trgm_index";`);
    this.addSql(`drop index "beneficiaries_name_trgm_index";`);
  }
}
