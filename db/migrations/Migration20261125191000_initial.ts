import { Migration } from '@mikro-orm/migrations';

/** The schema of the read state, from the entities; documents are found by trigram search on their text. */
export class Migration20261125191000_initial extends Migration {
  override name = 'Migration20261125191000_initial';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create type "country" as enum ('COL', 'MEX');`);
    this.addSql(`create type "beneficiary_type" as enum ('supplier', 'employee');`);
    this.addSql(`create type "contact_type" as enum ('email', 'phone');`);
    this.addSql(`create type "account_type" as enum ('savings', 'checking');`);
    this.addSql(
      `create type "validation_status" as enum ('pending', 'processing', 'validated', 'rejected', 'validation_error');`,
    );
    this.addSql(`create type "document_type" as enum ('invoice', 'debit_note', 'credit_note', 'expense');`);
    this.addSql(`create type "currency" as enum ('USD', 'COP', 'MXN', 'EUR');`);
    this.addSql(`create type "approval_status" as enum ('pending', 'in_review', 'approved', 'rejected');`);
    this.addSql(`create type "document_payment_status" as enum ('pending', 'partial', 'paid');`);
    this.addSql(`create type "prepaid_convention" as enum ('payable_net_of_prepaid', 'payable_includes_prepaid');`);
    this.addSql(`create type "accounting_entry_status" as enum ('posted', 'cancelled');`);
    this.addSql(
      `create type "registration_state" as enum ('awaiting_catalog', 'pending', 'registering', 'registered', 'failed');`,
    );
    this.addSql(`create type "account_nature" as enum ('debit', 'credit');`);
    this.addSql(`create type "ciec_status" as enum ('pending', 'valid', 'invalid');`);
    this.addSql(`create type "sync_status" as enum ('pending', 'waiting', 'running', 'finished', 'failed');`);
    this.addSql(`create type "fetching_status" as enum ('pending', 'running', 'finished');`);
    this.addSql(`create type "idempotency_status" as enum ('in_progress', 'completed');`);
    this.addSql(`create type "payable_type" as enum ('supplier', 'payroll', 'advance');`);
    this.addSql(`create type "payable_status" as enum ('pending', 'partial', 'paid', 'canceled');`);
    this.addSql(`create type "payment_status" as enum ('pending', 'in_process', 'processed', 'failed');`);
    this.addSql(`create type "reception_event_type" as enum ('030', '031', '032', '033', '034');`);
    this.addSql(`create type "reception_event_status" as enum ('processing', 'accepted', 'rejected', 'failed');`);
    this.addSql(
      `create type "webhook_event" as enum ('document.created', 'document.accounted', 'payment.rescheduled');`,
    );
    this.addSql(`create type "delivery_status" as enum ('pending', 'delivering', 'delivered', 'failed', 'rejected');`);
    this.addSql(`create type "step_kind" as enum ('approval', 'classification', 'tagging');`);
    this.addSql(`create type "step_status" as enum ('pending', 'completed');`);
    this.addSql(
      `create table "banks" ("id" uuid not null, "country" "country" not null, "code" varchar(255) not null, "name" varchar(255) not null, "active" boolean not null default true, primary key ("id"));`,
    );
    this.addSql(`alter table "banks" add constraint "banks_country_code_unique" unique ("country", "code");`);

    this.addSql(
      `create table "companies" ("id" uuid not null, "name" varchar(255) not null, "country" "country" not null, "tax_id" varchar(255) null, "features" text[] not null default '{}', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );

    this.addSql(
      `create table "beneficiaries" ("id" uuid not null, "company_id" uuid not null, "name" varchar(255) not null, "type" "beneficiary_type" not null default 'supplier', "email" varchar(255) null, "phone_number" varchar(255) null, "identifier_type" varchar(255) not null, "identifier_number" varchar(255) not null, "payment_terms" int null, "fiscal_address" text null, "is_deleted" boolean not null default false, "deleted_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "beneficiaries_company_id_name_index" on "beneficiaries" ("company_id", "name");`);
    this.addSql(`create index "beneficiaries_name_trgm_index" on "beneficiaries" using gin ("name" gin_trgm_ops);`);
    this.addSql(
      `create index "beneficiaries_identifier_number_trgm_index" on "beneficiaries" using gin ("identifier_number" gin_trgm_ops);`,
    );
    this.addSql(
      `alter table "beneficiaries" add constraint "beneficiaries_company_id_identifier_type_identifi_afb77_unique" unique ("company_id", "identifier_type", "identifier_number");`,
    );

    this.addSql(
      `create table "beneficiary_contacts" ("id" uuid not null, "company_id" uuid not null, "beneficiary_id" uuid not null, "type" "contact_type" not null, "value" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "beneficiary_contacts" add constraint "beneficiary_contacts_beneficiary_id_type_value_unique" unique ("beneficiary_id", "type", "value");`,
    );

    this.addSql(
      `create table "beneficiary_bank_accounts" ("id" uuid not null, "company_id" uuid not null, "beneficiary_id" uuid not null, "bank_id" uuid not null, "account_number" varchar(255) not null, "account_type" "account_type" not null, "validation_status" "validation_status" not null default 'pending', "validation_message" text null, "account_recipient_name" varchar(255) not null, "account_recipient_document_number" varchar(255) not null, "account_recipient_document_type" varchar(255) not null, "validation_attempt" int not null default 0, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "beneficiary_bank_accounts" add constraint "beneficiary_bank_accounts_beneficiary_id_bank_id__f7f8d_unique" unique ("beneficiary_id", "bank_id", "account_number");`,
    );

    this.addSql(
      `create table "api_keys" ("id" uuid not null, "company_id" uuid not null, "prefix" varchar(255) not null, "secret_hash" varchar(255) not null, "scopes" text[] not null default '{}', "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "api_keys_company_id_index" on "api_keys" ("company_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_prefix_unique" unique ("prefix");`);

    this.addSql(
      `create table "documents" ("id" uuid not null, "company_id" uuid not null, "beneficiary_id" uuid null, "country" "country" not null, "document_number" varchar(255) not null, "type" "document_type" not null, "amount_cents" bigint not null, "currency" "currency" not null, "subtotal_cents" bigint null, "tax_total_cents" bigint null, "withholding_total_cents" bigint null, "prepaid_cents" bigint null, "prepaid_convention" "prepaid_convention" null, "exchange_rate" numeric null, "exchange_rate_source_currency" "currency" null, "exchange_rate_target_currency" "currency" null, "exchange_rate_date" date null, "approval_status" "approval_status" not null default 'pending', "payment_status" "document_payment_status" not null default 'pending', "is_archived" boolean not null default false, "issue_date" timestamptz null, "expiration_date" timestamptz null, "fiscal_reference" varchar(255) collate "C" null, "fiscal_metadata" jsonb null, "file_path" varchar(2048) null, "source_xml_path" varchar(2048) null, "purchase_order" varchar(255) null, "is_canceled" boolean not null default false, "canceled_at" timestamptz null, "created_by" jsonb null, "document_support" jsonb null, "expenses" jsonb null, "approval_erp_reference" varchar(255) null, "approved_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "documents_company_id_is_archived_created_at_index" on "documents" ("company_id", "is_archived", "created_at");`,
    );
    this.addSql(
      `create index "documents_company_id_approval_status_index" on "documents" ("company_id", "approval_status");`,
    );
    this.addSql(
      `create index "documents_company_id_payment_status_index" on "documents" ("company_id", "payment_status");`,
    );
    this.addSql(`create index "documents_company_id_type_index" on "documents" ("company_id", "type");`);
    this.addSql(`create index "documents_company_id_issue_date_index" on "documents" ("company_id", "issue_date");`);
    this.addSql(
      `create index "documents_company_id_expiration_date_index" on "documents" ("company_id", "expiration_date");`,
    );
    this.addSql(
      `create index "documents_company_id_document_number_index" on "documents" ("company_id", "document_number");`,
    );
    this.addSql(
      `create index "documents_company_id_beneficiary_id_index" on "documents" ("company_id", "beneficiary_id");`,
    );
    this.addSql(`create index "documents_company_id_is_canceled_index" on "documents" ("company_id", "is_canceled");`);
    this.addSql(
      `create index "documents_document_number_trgm_index" on "documents" using gin ("document_number" gin_trgm_ops);`,
    );
    this.addSql(
      `alter table "documents" add constraint "documents_company_id_fiscal_reference_unique" unique ("company_id", "fiscal_reference");`,
    );

    this.addSql(
      `create table "activity_logs" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "event" varchar(255) not null, "actor" jsonb not null, "metadata" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "activity_logs_document_id_created_at_index" on "activity_logs" ("document_id", "created_at");`,
    );

    this.addSql(
      `create table "accounting_entries" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "status" "accounting_entry_status" not null default 'posted', "registration_state" "registration_state" not null default 'pending', "failure_code" varchar(255) null, "failure_message" text null, "accounted_at" timestamptz not null, "summary" jsonb not null, "journal_entry" jsonb null, "missing_catalog_entries" jsonb not null, "advance_crossings" jsonb not null, "registration_payload" jsonb null, "is_crossed" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "accounting_entries_document_id_created_at_index" on "accounting_entries" ("document_id", "created_at");`,
    );
    this.addSql(
      `create unique index "accounting_entries_one_posted_per_document" on "accounting_entries" ("document_id") where "status" = 'posted';`,
    );
    this.addSql(
      `create index "accounting_entries_awaiting_catalog" on "accounting_entries" ("company_id") where "registration_state" = 'awaiting_catalog';`,
    );

    this.addSql(
      `create table "document_notes" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "comment" text null, "file_path" varchar(2048) null, "file_name" varchar(255) null, "storage_key" varchar(255) null, "created_by" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "document_notes_document_id_created_at_index" on "document_notes" ("document_id", "created_at");`,
    );

    this.addSql(
      `create table "erp_book_accounts" ("id" uuid not null, "company_id" uuid not null, "external_id" varchar(255) not null, "is_active" boolean not null default true, "raw" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "code" varchar(255) not null, "name" varchar(255) not null, "nature" "account_nature" null, "parent_external_id" varchar(255) null, primary key ("id"));`,
    );
    this.addSql(
      `create index "erp_book_accounts_company_id_code_index" on "erp_book_accounts" ("company_id", "code");`,
    );
    this.addSql(
      `alter table "erp_book_accounts" add constraint "erp_book_accounts_company_id_external_id_unique" unique ("company_id", "external_id");`,
    );

    this.addSql(
      `create table "erp_cost_centers" ("id" uuid not null, "company_id" uuid not null, "external_id" varchar(255) not null, "is_active" boolean not null default true, "raw" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "code" varchar(255) null, "name" varchar(255) not null, "description" text null, "parent_external_id" varchar(255) null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "erp_cost_centers" add constraint "erp_cost_centers_company_id_external_id_unique" unique ("company_id", "external_id");`,
    );

    this.addSql(
      `create table "erp_documents" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "registered" boolean not null default false, "erp_invoice_id" text null, "invoice_reference" text null, "data" jsonb null, "registered_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "erp_documents" add constraint "erp_documents_document_id_unique" unique ("document_id");`,
    );

    this.addSql(
      `create table "erp_payment_terms" ("id" uuid not null, "company_id" uuid not null, "external_id" varchar(255) not null, "is_active" boolean not null default true, "raw" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "days" int null, "installments" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "erp_payment_terms" add constraint "erp_payment_terms_company_id_external_id_unique" unique ("company_id", "external_id");`,
    );

    this.addSql(
      `create table "erp_products" ("id" uuid not null, "company_id" uuid not null, "external_id" varchar(255) not null, "is_active" boolean not null default true, "raw" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "code" varchar(255) null, "name" varchar(255) not null, "description" text null, "unit_code" varchar(255) null, "book_account_external_id" varchar(255) null, "tax_external_ids" text[] not null default '{}', primary key ("id"));`,
    );
    this.addSql(`create index "erp_products_company_id_code_index" on "erp_products" ("company_id", "code");`);
    this.addSql(
      `alter table "erp_products" add constraint "erp_products_company_id_external_id_unique" unique ("company_id", "external_id");`,
    );

    this.addSql(
      `create table "erp_purchase_orders" ("id" uuid not null, "company_id" uuid not null, "external_id" varchar(255) not null, "is_active" boolean not null default true, "raw" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "number" varchar(255) not null, "vendor_external_id" varchar(255) null, "issue_date" date null, "currency" "currency" null, "status" varchar(255) null, "lines" jsonb not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "erp_purchase_orders_company_id_number_index" on "erp_purchase_orders" ("company_id", "number");`,
    );
    this.addSql(
      `create index "erp_purchase_orders_company_id_vendor_external_id_index" on "erp_purchase_orders" ("company_id", "vendor_external_id");`,
    );
    this.addSql(
      `alter table "erp_purchase_orders" add constraint "erp_purchase_orders_company_id_external_id_unique" unique ("company_id", "external_id");`,
    );

    this.addSql(
      `create table "erp_taxes" ("id" uuid not null, "company_id" uuid not null, "external_id" varchar(255) not null, "is_active" boolean not null default true, "raw" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "code" varchar(255) null, "name" varchar(255) not null, "type" varchar(255) null, "rate" numeric(12,8) null, "is_withholding" boolean not null default false, "book_account_external_id" varchar(255) null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "erp_taxes" add constraint "erp_taxes_company_id_external_id_unique" unique ("company_id", "external_id");`,
    );

    this.addSql(
      `create table "erp_vendors" ("id" uuid not null, "company_id" uuid not null, "external_id" varchar(255) not null, "is_active" boolean not null default true, "raw" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "name" varchar(255) not null, "identifier_type" varchar(255) null, "identifier_number" varchar(255) null, "email" varchar(255) null, "payment_term_external_id" varchar(255) null, primary key ("id"));`,
    );
    this.addSql(
      `create index "erp_vendors_company_id_identifier_number_index" on "erp_vendors" ("company_id", "identifier_number");`,
    );
    this.addSql(
      `alter table "erp_vendors" add constraint "erp_vendors_company_id_external_id_unique" unique ("company_id", "external_id");`,
    );

    this.addSql(
      `create table "fiscal_credentials" ("id" uuid not null, "company_id" uuid not null, "sat_ciec_status" "ciec_status" null, "rfc" varchar(255) null, "dian_forwarding_enabled" boolean not null default false, "dian_nit" varchar(255) null, "dian_legal_representative" varchar(255) null, "dian_test_set_id" varchar(255) null, "dian_event_person" jsonb null, "last_sync_at" timestamptz null, "last_sync_started_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "fiscal_credentials" add constraint "fiscal_credentials_company_id_unique" unique ("company_id");`,
    );

    this.addSql(
      `create table "signing_certificates" ("id" uuid not null, "company_id" uuid not null, "sealed_private_key" text not null, "certificate_pem" text not null, "chain_pem" text not null, "subject" text not null, "issuer" text not null, "serial_number" varchar(255) not null, "nit" varchar(255) not null, "not_before" timestamptz not null, "not_after" timestamptz not null, "fingerprint_sha256" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "signing_certificates" add constraint "signing_certificates_company_id_unique" unique ("company_id");`,
    );
    this.addSql(`create index "signing_certificates_not_after_index" on "signing_certificates" ("not_after");`);

    this.addSql(
      `create table "fiscal_sync_runs" ("id" uuid not null, "company_id" uuid not null, "country" "country" not null, "started_at" timestamptz not null, "sync_from" varchar(255) not null, "sync_to" varchar(255) not null, "status" "sync_status" not null default 'pending', "fetching_status" "fetching_status" null, "extraction_id" varchar(255) null, "error_code" varchar(255) null, "message" text null, "documents_imported" int not null default 0, "entries_skipped" int not null default 0, "details" jsonb null, "finished_at" timestamptz null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "fiscal_sync_runs" add constraint "fiscal_sync_runs_company_id_started_at_unique" unique ("company_id", "started_at");`,
    );

    this.addSql(
      `create table "intake_refusals" ("id" uuid not null, "company_id" uuid not null, "name" text not null, "fingerprint" varchar(64) not null, "reason" varchar(255) not null, "detail" text null, "recorded_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "intake_refusals_company_id_recorded_at_index" on "intake_refusals" ("company_id", "recorded_at");`,
    );
    this.addSql(
      `alter table "intake_refusals" add constraint "intake_refusals_company_id_name_fingerprint_unique" unique ("company_id", "name", "fingerprint");`,
    );

    this.addSql(
      `create table "fiscal_mailboxes" ("id" uuid not null, "company_id" uuid not null, "host" varchar(255) not null, "port" int not null, "tls" boolean not null, "username" varchar(255) not null, "sealed_password" text not null, "folder" varchar(255) not null default 'INBOX', "imported_folder" varchar(255) not null default 'Imported', "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "fiscal_mailboxes" add constraint "fiscal_mailboxes_company_id_unique" unique ("company_id");`,
    );

    this.addSql(
      `create table "fiscal_mailbox_messages" ("id" uuid not null, "company_id" uuid not null, "message_id" text not null, "sha256" varchar(255) not null, "run_id" uuid not null, "imported_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "fiscal_mailbox_messages" add constraint "fiscal_mailbox_messages_company_id_message_id_sha256_unique" unique ("company_id", "message_id", "sha256");`,
    );

    this.addSql(
      `create table "idempotency_keys" ("id" uuid not null, "company_id" uuid not null, "key" varchar(255) not null, "method" varchar(255) not null, "path" varchar(2048) not null, "request_hash" varchar(255) not null, "status" "idempotency_status" not null default 'in_progress', "response_status" int null, "response_body" text null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);
    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_company_id_key_unique" unique ("company_id", "key");`,
    );

    this.addSql(
      `create table "line_items" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "position" int not null, "name" text not null, "description" text null, "code" varchar(255) null, "quantity" numeric(24,6) not null, "unit_code" varchar(255) null, "unit_price_cents" bigint not null, "currency" "currency" not null, "subtotal_cents" bigint not null, "total_cents" bigint not null, "metadata" jsonb not null, "adjustments" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "line_items" add constraint "line_items_document_id_position_unique" unique ("document_id", "position");`,
    );

    this.addSql(
      `create table "members" ("id" uuid not null, "company_id" uuid not null, "email" varchar(255) not null, "name" varchar(255) not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "members" add constraint "members_company_id_email_unique" unique ("company_id", "email");`,
    );

    this.addSql(
      `create table "payables" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid null, "beneficiary_id" uuid not null, "type" "payable_type" not null default 'supplier', "status" "payable_status" not null default 'pending', "amount_cents" bigint not null, "currency" "currency" not null, "balance_cents" bigint not null, "issue_date" date null, "expiration_date" date null, "concept" text null, "origin" varchar(255) not null, "installment_number" int not null default 1, "projects" jsonb not null, "cost_center" jsonb null, "file_path" varchar(2048) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "payables_company_id_document_id_index" on "payables" ("company_id", "document_id");`);
    this.addSql(
      `create index "payables_company_id_beneficiary_id_index" on "payables" ("company_id", "beneficiary_id");`,
    );
    this.addSql(
      `create index "payables_company_id_expiration_date_index" on "payables" ("company_id", "expiration_date");`,
    );
    this.addSql(`create index "payables_company_id_status_index" on "payables" ("company_id", "status");`);
    this.addSql(`create index "payables_concept_trgm_index" on "payables" using gin ("concept" gin_trgm_ops);`);

    this.addSql(
      `create table "payment_batches" ("id" uuid not null, "company_id" uuid not null, "name" varchar(255) not null, "status" varchar(255) not null default 'releasing', "currency" "currency" not null, "gateway_reference" varchar(255) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "payment_batches_company_id_created_at_index" on "payment_batches" ("company_id", "created_at");`,
    );

    this.addSql(
      `create table "payments" ("id" uuid not null, "company_id" uuid not null, "payable_id" uuid not null, "beneficiary_id" uuid not null, "batch_id" uuid null, "amount_cents" bigint not null, "currency" "currency" not null, "exchange_amount_cents" bigint null, "exchange_currency" "currency" null, "exchange_rate" numeric(20,8) null, "status" "payment_status" not null default 'pending', "pay_date" date not null, "failure_reason" text null, "file_path" varchar(2048) null, "receipt_file_path" varchar(2048) null, "is_archived" boolean not null default false, "payment_method" varchar(255) null, "paid_at" timestamptz null, "is_expense" boolean not null default false, "is_payroll" boolean not null default false, "source_of_fund" jsonb null, "accounting_receipt" jsonb null, "payment_gateway" jsonb null, "gateway_reference" varchar(255) null, "erp_payment_reference" varchar(255) null, "erp_payment" jsonb null, "erp_payable_reference" varchar(255) null, "erp_payable" jsonb null, "advance_outstanding_cents" bigint null, "advance_balance_updated_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "payments_company_id_is_archived_is_payroll_created_at_index" on "payments" ("company_id", "is_archived", "is_payroll", "created_at");`,
    );
    this.addSql(`create index "payments_company_id_status_index" on "payments" ("company_id", "status");`);
    this.addSql(
      `create index "payments_company_id_beneficiary_id_index" on "payments" ("company_id", "beneficiary_id");`,
    );
    this.addSql(`create index "payments_company_id_payable_id_index" on "payments" ("company_id", "payable_id");`);
    this.addSql(`create index "payments_company_id_batch_id_index" on "payments" ("company_id", "batch_id");`);
    this.addSql(
      `create index "payments_company_id_payment_method_index" on "payments" ("company_id", "payment_method");`,
    );
    this.addSql(`create index "payments_company_id_paid_at_index" on "payments" ("company_id", "paid_at");`);
    this.addSql(`create index "payments_company_id_amount_cents_index" on "payments" ("company_id", "amount_cents");`);
    this.addSql(
      `create index "payments_company_id_is_expense_created_at_index" on "payments" ("company_id", "is_expense", "created_at");`,
    );
    this.addSql(
      `create index "payments_company_id_gateway_reference_index" on "payments" ("company_id", "gateway_reference");`,
    );

    this.addSql(
      `create table "payment_receipt_complements" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "complement_fiscal_uuid" varchar(255) not null, "payment_date" timestamptz not null, "amount_cents" bigint not null, "currency" "currency" not null, "installment_number" int not null, "previous_balance_cents" bigint not null, "paid_cents" bigint not null, "outstanding_balance_cents" bigint not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "payment_receipt_complements" add constraint "payment_receipt_complements_document_id_complemen_a8096_unique" unique ("document_id", "complement_fiscal_uuid", "installment_number");`,
    );

    this.addSql(
      `create table "reception_events" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "cufe" varchar(96) not null, "event_type" "reception_event_type" not null, "status" "reception_event_status" not null default 'processing', "response_code_list_id" varchar(255) null, "description_claim" text null, "message" text null, "dian_response" jsonb null, "issue_date" timestamptz null, "attempts" int not null default 0, "round" int not null default 1, "submitted_at" timestamptz null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "reception_events" add constraint "reception_events_company_id_document_id_event_type_unique" unique ("company_id", "document_id", "event_type");`,
    );

    this.addSql(
      `create table "reception_event_batches" ("id" uuid not null, "company_id" uuid not null, "event_ids" uuid[] not null, "resubmitted_ids" uuid[] not null, "timing" jsonb not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "reception_event_batches_created_at_index" on "reception_event_batches" ("created_at");`);

    this.addSql(
      `create table "tags" ("id" uuid not null, "company_id" uuid not null, "name" varchar(255) not null, "normalized_name" varchar(255) not null, "is_system" boolean not null default false, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "tags" add constraint "tags_company_id_normalized_name_unique" unique ("company_id", "normalized_name");`,
    );

    this.addSql(
      `create table "payment_tags" ("id" uuid not null, "company_id" uuid not null, "payment_id" uuid not null, "tag_id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "payment_tags_tag_id_payment_id_index" on "payment_tags" ("tag_id", "payment_id");`);
    this.addSql(
      `alter table "payment_tags" add constraint "payment_tags_payment_id_tag_id_unique" unique ("payment_id", "tag_id");`,
    );

    this.addSql(
      `create table "document_tags" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "tag_id" uuid not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "document_tags_tag_id_document_id_index" on "document_tags" ("tag_id", "document_id");`);
    this.addSql(
      `alter table "document_tags" add constraint "document_tags_document_id_tag_id_unique" unique ("document_id", "tag_id");`,
    );

    this.addSql(
      `create table "webhook_subscriptions" ("id" uuid not null, "company_id" uuid not null, "event" "webhook_event" not null, "url" varchar(2048) not null, "secret_ciphertext" text not null, "retries" int not null default 3, "timeout_seconds" int not null default 30, "headers" jsonb not null, "is_active" boolean not null default true, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_subscriptions_company_id_event_is_active_index" on "webhook_subscriptions" ("company_id", "event", "is_active");`,
    );

    this.addSql(
      `create table "webhook_deliveries" ("id" uuid not null, "company_id" uuid not null, "subscription_id" uuid not null, "event_id" varchar(255) not null, "event" "webhook_event" not null, "subject_id" varchar(255) null, "payload" jsonb not null, "body" text not null, "status" "delivery_status" not null default 'pending', "attempts" int not null default 0, "last_status_code" int null, "receiver_response" jsonb null, "delivered_at" timestamptz null, "sending_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "webhook_deliveries_company_id_created_at_index" on "webhook_deliveries" ("company_id", "created_at");`,
    );
    this.addSql(
      `create index "webhook_deliveries_company_id_subject_id_event_index" on "webhook_deliveries" ("company_id", "subject_id", "event");`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_subscription_id_event_id_unique" unique ("subscription_id", "event_id");`,
    );

    this.addSql(
      `create table "webhook_delivery_attempts" ("id" uuid not null, "company_id" uuid not null, "delivery_id" uuid not null, "attempt" int not null, "started_at" timestamptz not null, "status_code" int null, "latency_ms" int null, "error" text null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "webhook_delivery_attempts" add constraint "webhook_delivery_attempts_delivery_id_attempt_unique" unique ("delivery_id", "attempt");`,
    );

    this.addSql(
      `create table "workflow_flows" ("id" uuid not null, "company_id" uuid not null, "definition" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "workflow_flows" add constraint "workflow_flows_company_id_unique" unique ("company_id");`,
    );

    this.addSql(
      `create table "workflow_steps" ("id" uuid not null, "company_id" uuid not null, "document_id" uuid not null, "beneficiary_id" uuid null, "position" int not null, "action" varchar(255) not null, "kind" "step_kind" null, "status" "step_status" not null default 'pending', "actionable" boolean not null, "require_all" boolean not null default false, "entity" jsonb not null, "decision" jsonb null, "assignees" jsonb not null, "recommendations" jsonb not null, "result" jsonb null, "acted_by" jsonb null, "comment" text null, "decided_by_agent" boolean not null default false, "created_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "workflow_steps" add constraint "workflow_steps_document_id_position_unique" unique ("document_id", "position");`,
    );
    this.addSql(
      `create unique index "workflow_steps_one_pending_per_document" on "workflow_steps" ("document_id") where "status" = 'pending';`,
    );
    this.addSql(
      `create index "workflow_steps_decision_history_index" on "workflow_steps" ("company_id", "beneficiary_id", "kind", "completed_at") where "status" = 'completed' and "decided_by_agent" = false;`,
    );

    this.addSql(
      `create table "agent_settings" ("id" uuid not null, "company_id" uuid not null, "kind" "step_kind" not null, "enabled" boolean not null default false, "auto_decide_above" numeric(5,4) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `alter table "agent_settings" add constraint "agent_settings_company_id_kind_unique" unique ("company_id", "kind");`,
    );

    this.addSql(
      `alter table "beneficiaries" add constraint "beneficiaries_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "beneficiary_contacts" add constraint "beneficiary_contacts_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "beneficiary_contacts" add constraint "beneficiary_contacts_beneficiary_id_foreign" foreign key ("beneficiary_id") references "beneficiaries" ("id");`,
    );

    this.addSql(
      `alter table "beneficiary_bank_accounts" add constraint "beneficiary_bank_accounts_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "beneficiary_bank_accounts" add constraint "beneficiary_bank_accounts_beneficiary_id_foreign" foreign key ("beneficiary_id") references "beneficiaries" ("id");`,
    );
    this.addSql(
      `alter table "beneficiary_bank_accounts" add constraint "beneficiary_bank_accounts_bank_id_foreign" foreign key ("bank_id") references "banks" ("id");`,
    );

    this.addSql(
      `alter table "api_keys" add constraint "api_keys_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "documents" add constraint "documents_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "documents" add constraint "documents_beneficiary_id_foreign" foreign key ("beneficiary_id") references "beneficiaries" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "activity_logs" add constraint "activity_logs_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "activity_logs" add constraint "activity_logs_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );

    this.addSql(
      `alter table "accounting_entries" add constraint "accounting_entries_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "accounting_entries" add constraint "accounting_entries_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );

    this.addSql(
      `alter table "document_notes" add constraint "document_notes_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "document_notes" add constraint "document_notes_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );

    this.addSql(
      `alter table "erp_book_accounts" add constraint "erp_book_accounts_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "erp_cost_centers" add constraint "erp_cost_centers_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "erp_documents" add constraint "erp_documents_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "erp_documents" add constraint "erp_documents_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );

    this.addSql(
      `alter table "erp_payment_terms" add constraint "erp_payment_terms_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "erp_products" add constraint "erp_products_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "erp_purchase_orders" add constraint "erp_purchase_orders_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "erp_taxes" add constraint "erp_taxes_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "erp_vendors" add constraint "erp_vendors_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "fiscal_credentials" add constraint "fiscal_credentials_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "signing_certificates" add constraint "signing_certificates_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "fiscal_sync_runs" add constraint "fiscal_sync_runs_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "intake_refusals" add constraint "intake_refusals_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "fiscal_mailboxes" add constraint "fiscal_mailboxes_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "fiscal_mailbox_messages" add constraint "fiscal_mailbox_messages_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "idempotency_keys" add constraint "idempotency_keys_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "line_items" add constraint "line_items_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "line_items" add constraint "line_items_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );

    this.addSql(
      `alter table "members" add constraint "members_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "payables" add constraint "payables_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "payables" add constraint "payables_document_id_foreign" foreign key ("document_id") references "documents" ("id") on delete set null;`,
    );
    this.addSql(
      `alter table "payables" add constraint "payables_beneficiary_id_foreign" foreign key ("beneficiary_id") references "beneficiaries" ("id");`,
    );

    this.addSql(
      `alter table "payment_batches" add constraint "payment_batches_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "payments" add constraint "payments_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "payments" add constraint "payments_payable_id_foreign" foreign key ("payable_id") references "payables" ("id");`,
    );
    this.addSql(
      `alter table "payments" add constraint "payments_beneficiary_id_foreign" foreign key ("beneficiary_id") references "beneficiaries" ("id");`,
    );
    this.addSql(
      `alter table "payments" add constraint "payments_batch_id_foreign" foreign key ("batch_id") references "payment_batches" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "payment_receipt_complements" add constraint "payment_receipt_complements_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "payment_receipt_complements" add constraint "payment_receipt_complements_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );

    this.addSql(
      `alter table "reception_events" add constraint "reception_events_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );

    this.addSql(
      `alter table "reception_event_batches" add constraint "reception_event_batches_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "tags" add constraint "tags_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "payment_tags" add constraint "payment_tags_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "payment_tags" add constraint "payment_tags_payment_id_foreign" foreign key ("payment_id") references "payments" ("id");`,
    );
    this.addSql(
      `alter table "payment_tags" add constraint "payment_tags_tag_id_foreign" foreign key ("tag_id") references "tags" ("id");`,
    );

    this.addSql(
      `alter table "document_tags" add constraint "document_tags_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "document_tags" add constraint "document_tags_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );
    this.addSql(
      `alter table "document_tags" add constraint "document_tags_tag_id_foreign" foreign key ("tag_id") references "tags" ("id");`,
    );

    this.addSql(
      `alter table "webhook_subscriptions" add constraint "webhook_subscriptions_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "webhook_deliveries" add constraint "webhook_deliveries_subscription_id_foreign" foreign key ("subscription_id") references "webhook_subscriptions" ("id");`,
    );

    this.addSql(
      `alter table "webhook_delivery_attempts" add constraint "webhook_delivery_attempts_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "webhook_delivery_attempts" add constraint "webhook_delivery_attempts_delivery_id_foreign" foreign key ("delivery_id") references "webhook_deliveries" ("id");`,
    );

    this.addSql(
      `alter table "workflow_flows" add constraint "workflow_flows_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );

    this.addSql(
      `alter table "workflow_steps" add constraint "workflow_steps_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
    this.addSql(
      `alter table "workflow_steps" add constraint "workflow_steps_document_id_foreign" foreign key ("document_id") references "documents" ("id");`,
    );
    this.addSql(
      `alter table "workflow_steps" add constraint "workflow_steps_beneficiary_id_foreign" foreign key ("beneficiary_id") references "beneficiaries" ("id") on delete set null;`,
    );

    this.addSql(
      `alter table "agent_settings" add constraint "agent_settings_company_id_foreign" foreign key ("company_id") references "companies" ("id");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "beneficiary_bank_accounts" drop constraint "beneficiary_bank_accounts_bank_id_foreign";`);
    this.addSql(`alter table "beneficiaries" drop constraint "beneficiaries_company_id_foreign";`);
    this.addSql(`alter table "beneficiary_contacts" drop constraint "beneficiary_contacts_company_id_foreign";`);
    this.addSql(
      `alter table "beneficiary_bank_accounts" drop constraint "beneficiary_bank_accounts_company_id_foreign";`,
    );
    this.addSql(`alter table "api_keys" drop constraint "api_keys_company_id_foreign";`);
    this.addSql(`alter table "documents" drop constraint "documents_company_id_foreign";`);
    this.addSql(`alter table "activity_logs" drop constraint "activity_logs_company_id_foreign";`);
    this.addSql(`alter table "accounting_entries" drop constraint "accounting_entries_company_id_foreign";`);
    this.addSql(`alter table "document_notes" drop constraint "document_notes_company_id_foreign";`);
    this.addSql(`alter table "erp_book_accounts" drop constraint "erp_book_accounts_company_id_foreign";`);
    this.addSql(`alter table "erp_cost_centers" drop constraint "erp_cost_centers_company_id_foreign";`);
    this.addSql(`alter table "erp_documents" drop constraint "erp_documents_company_id_foreign";`);
    this.addSql(`alter table "erp_payment_terms" drop constraint "erp_payment_terms_company_id_foreign";`);
    this.addSql(`alter table "erp_products" drop constraint "erp_products_company_id_foreign";`);
    this.addSql(`alter table "erp_purchase_orders" drop constraint "erp_purchase_orders_company_id_foreign";`);
    this.addSql(`alter table "erp_taxes" drop constraint "erp_taxes_company_id_foreign";`);
    this.addSql(`alter table "erp_vendors" drop constraint "erp_vendors_company_id_foreign";`);
    this.addSql(`alter table "fiscal_credentials" drop constraint "fiscal_credentials_company_id_foreign";`);
    this.addSql(`alter table "signing_certificates" drop constraint "signing_certificates_company_id_foreign";`);
    this.addSql(`alter table "fiscal_sync_runs" drop constraint "fiscal_sync_runs_company_id_foreign";`);
    this.addSql(`alter table "intake_refusals" drop constraint "intake_refusals_company_id_foreign";`);
    this.addSql(`alter table "fiscal_mailboxes" drop constraint "fiscal_mailboxes_company_id_foreign";`);
    this.addSql(`alter table "fiscal_mailbox_messages" drop constraint "fiscal_mailbox_messages_company_id_foreign";`);
    this.addSql(`alter table "idempotency_keys" drop constraint "idempotency_keys_company_id_foreign";`);
    this.addSql(`alter table "line_items" drop constraint "line_items_company_id_foreign";`);
    this.addSql(`alter table "members" drop constraint "members_company_id_foreign";`);
    this.addSql(`alter table "payables" drop constraint "payables_company_id_foreign";`);
    this.addSql(`alter table "payment_batches" drop constraint "payment_batches_company_id_foreign";`);
    this.addSql(`alter table "payments" drop constraint "payments_company_id_foreign";`);
    this.addSql(
      `alter table "payment_receipt_complements" drop constraint "payment_receipt_complements_company_id_foreign";`,
    );
    this.addSql(`alter table "reception_event_batches" drop constraint "reception_event_batches_company_id_foreign";`);
    this.addSql(`alter table "tags" drop constraint "tags_company_id_foreign";`);
    this.addSql(`alter table "payment_tags" drop constraint "payment_tags_company_id_foreign";`);
    this.addSql(`alter table "document_tags" drop constraint "document_tags_company_id_foreign";`);
    this.addSql(`alter table "webhook_subscriptions" drop constraint "webhook_subscriptions_company_id_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_company_id_foreign";`);
    this.addSql(
      `alter table "webhook_delivery_attempts" drop constraint "webhook_delivery_attempts_company_id_foreign";`,
    );
    this.addSql(`alter table "workflow_flows" drop constraint "workflow_flows_company_id_foreign";`);
    this.addSql(`alter table "workflow_steps" drop constraint "workflow_steps_company_id_foreign";`);
    this.addSql(`alter table "beneficiary_contacts" drop constraint "beneficiary_contacts_beneficiary_id_foreign";`);
    this.addSql(
      `alter table "beneficiary_bank_accounts" drop constraint "beneficiary_bank_accounts_beneficiary_id_foreign";`,
    );
    this.addSql(`alter table "documents" drop constraint "documents_beneficiary_id_foreign";`);
    this.addSql(`alter table "payables" drop constraint "payables_beneficiary_id_foreign";`);
    this.addSql(`alter table "payments" drop constraint "payments_beneficiary_id_foreign";`);
    this.addSql(`alter table "activity_logs" drop constraint "activity_logs_document_id_foreign";`);
    this.addSql(`alter table "accounting_entries" drop constraint "accounting_entries_document_id_foreign";`);
    this.addSql(`alter table "document_notes" drop constraint "document_notes_document_id_foreign";`);
    this.addSql(`alter table "erp_documents" drop constraint "erp_documents_document_id_foreign";`);
    this.addSql(`alter table "line_items" drop constraint "line_items_document_id_foreign";`);
    this.addSql(`alter table "payables" drop constraint "payables_document_id_foreign";`);
    this.addSql(
      `alter table "payment_receipt_complements" drop constraint "payment_receipt_complements_document_id_foreign";`,
    );
    this.addSql(`alter table "reception_events" drop constraint "reception_events_document_id_foreign";`);
    this.addSql(`alter table "document_tags" drop constraint "document_tags_document_id_foreign";`);
    this.addSql(`alter table "workflow_steps" drop constraint "workflow_steps_document_id_foreign";`);
    this.addSql(`alter table "workflow_steps" drop constraint "workflow_steps_beneficiary_id_foreign";`);
    this.addSql(`alter table "agent_settings" drop constraint "agent_settings_company_id_foreign";`);
    this.addSql(`alter table "payments" drop constraint "payments_payable_id_foreign";`);
    this.addSql(`alter table "payments" drop constraint "payments_batch_id_foreign";`);
    this.addSql(`alter table "payment_tags" drop constraint "payment_tags_payment_id_foreign";`);
    this.addSql(`alter table "payment_tags" drop constraint "payment_tags_tag_id_foreign";`);
    this.addSql(`alter table "document_tags" drop constraint "document_tags_tag_id_foreign";`);
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_subscription_id_foreign";`);
    this.addSql(
      `alter table "webhook_delivery_attempts" drop constraint "webhook_delivery_attempts_delivery_id_foreign";`,
    );

    this.addSql(`drop table if exists "banks" cascade;`);
    this.addSql(`drop table if exists "companies" cascade;`);
    this.addSql(`drop table if exists "beneficiaries" cascade;`);
    this.addSql(`drop table if exists "beneficiary_contacts" cascade;`);
    this.addSql(`drop table if exists "beneficiary_bank_accounts" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);
    this.addSql(`drop table if exists "documents" cascade;`);
    this.addSql(`drop table if exists "activity_logs" cascade;`);
    this.addSql(`drop table if exists "accounting_entries" cascade;`);
    this.addSql(`drop table if exists "document_notes" cascade;`);
    this.addSql(`drop table if exists "erp_book_accounts" cascade;`);
    this.addSql(`drop table if exists "erp_cost_centers" cascade;`);
    this.addSql(`drop table if exists "erp_documents" cascade;`);
    this.addSql(`drop table if exists "erp_payment_terms" cascade;`);
    this.addSql(`drop table if exists "erp_products" cascade;`);
    this.addSql(`drop table if exists "erp_purchase_orders" cascade;`);
    this.addSql(`drop table if exists "erp_taxes" cascade;`);
    this.addSql(`drop table if exists "erp_vendors" cascade;`);
    this.addSql(`drop table if exists "fiscal_credentials" cascade;`);
    this.addSql(`drop table if exists "signing_certificates" cascade;`);
    this.addSql(`drop table if exists "fiscal_sync_runs" cascade;`);
    this.addSql(`drop table if exists "intake_refusals" cascade;`);
    this.addSql(`drop table if exists "fiscal_mailboxes" cascade;`);
    this.addSql(`drop table if exists "fiscal_mailbox_messages" cascade;`);
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
    this.addSql(`drop table if exists "line_items" cascade;`);
    this.addSql(`drop table if exists "members" cascade;`);
    this.addSql(`drop table if exists "payables" cascade;`);
    this.addSql(`drop table if exists "payment_batches" cascade;`);
    this.addSql(`drop table if exists "payments" cascade;`);
    this.addSql(`drop table if exists "payment_receipt_complements" cascade;`);
    this.addSql(`drop table if exists "reception_events" cascade;`);
    this.addSql(`drop table if exists "reception_event_batches" cascade;`);
    this.addSql(`drop table if exists "tags" cascade;`);
    this.addSql(`drop table if exists "payment_tags" cascade;`);
    this.addSql(`drop table if exists "document_tags" cascade;`);
    this.addSql(`drop table if exists "webhook_subscriptions" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
    this.addSql(`drop table if exists "webhook_delivery_attempts" cascade;`);
    this.addSql(`drop table if exists "workflow_flows" cascade;`);
    this.addSql(`drop table if exists "workflow_steps" cascade;`);
    this.addSql(`drop table if exists "agent_settings" cascade;`);

    this.addSql(`drop type "country";`);
    this.addSql(`drop type "beneficiary_type";`);
    this.addSql(`drop type "contact_type";`);
    this.addSql(`drop type "account_type";`);
    this.addSql(`drop type "validation_status";`);
    this.addSql(`drop type "document_type";`);
    this.addSql(`drop type "currency";`);
    this.addSql(`drop type "approval_status";`);
    this.addSql(`drop type "document_payment_status";`);
    this.addSql(`drop type "prepaid_convention";`);
    this.addSql(`drop type "accounting_entry_status";`);
    this.addSql(`drop type "registration_state";`);
    this.addSql(`drop type "account_nature";`);
    this.addSql(`drop type "ciec_status";`);
    this.addSql(`drop type "sync_status";`);
    this.addSql(`drop type "fetching_status";`);
    this.addSql(`drop type "idempotency_status";`);
    this.addSql(`drop type "payable_type";`);
    this.addSql(`drop type "payable_status";`);
    this.addSql(`drop type "payment_status";`);
    this.addSql(`drop type "reception_event_type";`);
    this.addSql(`drop type "reception_event_status";`);
    this.addSql(`drop type "webhook_event";`);
    this.addSql(`drop type "delivery_status";`);
    this.addSql(`drop type "step_kind";`);
    this.addSql(`drop type "step_status";`);
  }
}
