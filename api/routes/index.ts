import type { RouteGroup } from '../schemas/openapi.ts';
import { advanceRoutes } from './advances.ts';
import { bankRoutes } from './banks.ts';
import { beneficiaryRoutes } from './beneficiaries.ts';
import { documentAccountingRoutes } from './document-accounting.ts';
import { documentRoutes } from './documents.ts';
import { erpRoutes } from './erp.ts';
import { expenseRoutes } from './expenses.ts';
import { paymentRoutes } from './payments.ts';
import { eventRoutes } from './events.ts';
import { fiscalSyncRoutes } from './fiscal-sync.ts';
import { workflowStepRoutes } from './workflow-steps.ts';

import { ERP_PREFIX, PUBLIC_PREFIX } from '../../platform/api-paths.ts';

export { ERP_PREFIX, PUBLIC_PREFIX };

/** Every declared route, by base path: the router and the OpenAPI document both read this table. */
export const ROUTE_GROUPS: RouteGroup[] = [
  {
    prefix: PUBLIC_PREFIX,
    routes: [
      ...documentRoutes,
      ...expenseRoutes,
      ...documentAccountingRoutes,
      ...workflowStepRoutes,
      ...bankRoutes,
      ...eventRoutes,
      ...paymentRoutes,
      ...beneficiaryRoutes,
      ...fiscalSyncRoutes,
    ],
  },
  { prefix: ERP_PREFIX, routes: [...erpRoutes, ...advanceRoutes] },
];
