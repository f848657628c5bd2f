// Which DIAN the product speaks to, and as which software. DIAN gives each environment its own host; a company is
// enabled in habilitación (test set, ProfileExecutionID 2) before it sends to producción (1).

export const DIAN_ENVIRONMENTS = ['habilitacion', 'produccion'] as const;
export type DianEnvironment = (typeof DIAN_ENVIRONMENTS)[number];

/** DIAN's hosts; its WCF service answers at `/WcfDianCustomerServices.svc` on each. */
const HOSTS: Record<DianEnvironment, string> = {
  habilitacion: 'https://vpfe-hab.dian.gov.co',
  produccion: 'https://vpfe.dian.gov.co',
};

export interface DianSettings {
  environment: DianEnvironment;
  /** The WCF service's URL: the `wsa:To` of every request. */
  serviceUrl: string;
  /** The software DIAN registered for the sending companies (`DIAN_SOFTWARE_ID`), and its PIN, which never leaves. */
  softwareId: string | null;
  softwarePin: string | null;
  /** The NIT of whoever DIAN registered the software for (`DIAN_SOFTWARE_PROVIDER_NIT`); null: the sending company's own. */
  softwareProviderNit: string | null;
}

/** ProfileExecutionID: 1 in producción, 2 in habilitación. */
export const profileExecutionId = (environment: DianEnvironment): '1' | '2' =>
  environment === 'produccion' ? '1' : '2';

/**
 * From `DIAN_ENVIRONMENT` (habilitacion by default), `DIAN_URL` (DIAN's host for that environment unless set: a
 * simulator, a proxy), `DIAN_SOFTWARE_ID`, `DIAN_SOFTWARE_PIN` and `DIAN_SOFTWARE_PROVIDER_NIT`.
 */
export function dianSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): DianSettings {
  const environment = (env.DIAN_ENVIRONMENT || 'habilitacion') as DianEnvironment;
  if (!DIAN_ENVIRONMENTS.includes(environment))
    throw new Error(`DIAN_ENVIRONMENT must be habilitacion or produccion, not ${JSON.stringify(env.DIAN_ENVIRONMENT)}`);
  const host = (env.DIAN_URL || HOSTS[environment]).replace(/\/+$/, '');
  return {
    environment,
    serviceUrl: `${host}/WcfDianCustomerServices.svc`,
    softwareId: env.DIAN_SOFTWARE_ID || null,
    softwarePin: env.DIAN_SOFTWARE_PIN || null,
    softwareProviderNit: env.DIAN_SOFTWARE_PROVIDER_NIT || null,
  };
}
