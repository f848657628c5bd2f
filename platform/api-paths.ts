export const PUBLIC_PREFIX = '/public/api/v1';
export const ERP_PREFIX = '/api/v1/erp';
