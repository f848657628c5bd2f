import type { RouteGroup } from '../schemas/openapi.ts';
import { bankRoutes } from './banks.ts';

export const PUBLIC_PREFIX = '/public/api/v1';
export const ERP_PREFIX = '/api/v1/erp';

/** Every declared route, by base path: the router and the OpenAPI document both read this table. */
export const ROUTE_GROUPS: RouteGroup[] = [
  { prefix: PUBLIC_PREFIX, routes: [...bankRoutes] },
  { prefix: ERP_PREFIX, routes: [] },
];
