// The keys the contract lists for a voucher in `document.accounted` (Events > document.accounted), sorted.

export const JOURNAL_ENTRY_KEYS = [
  'cost_center_external_id',
  'description',
  'document_number',
  'document_type_external_id',
  'erp_journal_entry_lines',
  'erp_journal_entry_taxes',
  'expiration_date',
  'issue_date',
  'payment_lines',
  'posting_date',
  'status',
  'vendor_external_id',
];

export const JOURNAL_LINE_KEYS = [
  'book_account_external_id',
  'cost_centers',
  'credit_cents',
  'debit_cents',
  'description',
  'discount',
  'discount_rate',
  'goods_receipt_line_external_id',
  'metadata',
  'product_external_id',
  'purchase_order_line_external_id',
  'quantity',
  'source',
  'taxes',
  'unit_price_cents',
  'vendor_external_id',
  'warehouses',
];

export const PAYMENT_LINE_KEYS = [
  'amount_cents',
  'book_account_code',
  'book_account_external_id',
  'book_account_name',
  'cost_center_external_id',
  'due_date',
  'payment_method_external_id',
  'quota_number',
];

export const keysOf = (value: object) => Object.keys(value).sort();
