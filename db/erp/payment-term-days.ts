/**
 * SQL: the days of the ERP payment term of the supplier whose `beneficiaries` row has the alias `beneficiary`, or null
 * when the ERP catalogs hold none. The term is found as the payable schedule finds it (readLifecycleState): the active
 * ERP vendor with the beneficiary's identifier number, then that vendor's `payment_term_external_id`. A term in
 * installments says when its last installment is due (its largest `days`); any other says its `days`.
 */
export const supplierPaymentTermDays = (beneficiary: string): string =>
  `(select case
      when jsonb_typeof(erp_t.installments) = 'array' and jsonb_array_length(erp_t.installments) > 0
        then (select max((erp_i.value ->> 'days')::int) from jsonb_array_elements(erp_t.installments) as erp_i)
      else erp_t.days end
    from erp_payment_terms as erp_t
    where erp_t.company_id = ${beneficiary}.company_id and erp_t.external_id = (
      select erp_v.payment_term_external_id from erp_vendors as erp_v
      where erp_v.company_id = ${beneficiary}.company_id
        and erp_v.identifier_number = ${beneficiary}.identifier_number and erp_v.is_active
      limit 1)
    limit 1)`;
