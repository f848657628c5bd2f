import { Migration } from '@mikro-orm/migrations';

/**
 * The accounting agent that never invents an account: what people taught it per supplier (book account rules), how it
 * works per company (accounting settings), a vendor's default account, and the states a voucher waits in for people.
 */
export class Migration20261128220000_accounting_agent extends Migration {
  override name = 'Migration20261128220000_accounting_agent';

  override up(): void | Promise<void> {
    this.addSql(`create type "book_account_rule_match" as enum ('product', 'description');`);
    this.addSql(`create type "book_account_rule_source" as enum ('classification', 'voucher');`);
    this.addSql(
      `create table "book_account_rules" ("id" uuid not null, "company_id" uuid not null, "beneficiary_id" uuid not null, "match_kind" "book_account_rule_match" not null, "match_key" varchar(500) not null, "book_account_external_id" varchar(255) not null, "source" "book_account_rule_source" not null, "source_reference" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "book_account_rules_company_id_match_kind_match_key_index" on "book_account_rules" ("company_id", "match_kind", "match_key");`,
    );
    this.addSql(
      `alter table "book_account_rules" add constraint "book_account_rules_one_per_key" unique ("company_id", "beneficiary_id", "match_kind", "match_key");`,
    );

    this.addSql(
      `create table "accounting_settings" ("id" uuid not null, "company_id" uuid not null, "automatic" boolean not null default true, "price_tolerance_percent" numeric(5,2) not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "accounting_settings" add constraint "accounting_settings_company_id_unique" unique ("company_id");`,
    );

    this.addSql(`alter type "registration_state" add value if not exists 'awaiting_classification' after 'failed';`);
    this.addSql(
      `alter type "registration_state" add value if not exists 'awaiting_order_review' after 'awaiting_classification';`,
    );
    this.addSql(`alter type "registration_state" add value if not exists 'held' after 'awaiting_order_review';`);

    this.addSql(`alter table "erp_vendors" add "book_account_external_id" varchar(255) null;`);

    this.addSql(
      `alter table "book_account_rules" add constraint "book_account_rules_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "book_account_rules" add constraint "book_account_rules_beneficiary_id_foreign" foreign key ("beneficiary_id") references "beneficiaries" ("id");`,
    );

    this.addSql(
      `alter table "accounting_settings" add constraint "accounting_settings_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
  }

  // PostgreSQL cannot drop an enum value: the three registration states stay, unused by the older code.
  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "book_account_rules" cascade;`);
    this.addSql(`drop table if exists "accounting_settings" cascade;`);

    this.addSql(`alter table "erp_vendors" drop column "book_account_external_id";`);

    this.addSql(`drop type "book_account_rule_match";`);
    this.addSql(`drop type "book_account_rule_source";`);
  }
}
