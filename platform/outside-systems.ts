/** Where the outside systems are: the real ones in production, the simulators in development and tests. */
export interface OutsideSystems {
  /** The payment gateway that settles transfers to beneficiaries. */
  paymentGatewayUrl: string;
  /** The service that validates beneficiaries' bank accounts. */
  bankValidationUrl: string;
  /** DIAN's web services (reception events, access tokens). */
  dianUrl: string;
  /** The SAT bulk-download extraction provider. */
  satProviderUrl: string;
  /** DIAN's access-token service for fiscal sync; empty means `dianUrl`. */
  dianAuthUrl?: string;
  /** The directory where companies' forwarded DIAN e-mail is delivered (`<dir>/<companyRef>/{new,cur}/`, Maildir). */
  dianMailboxDir?: string;
}

const VARIABLES: Record<keyof OutsideSystems, string> = {
  paymentGatewayUrl: 'PAYMENT_GATEWAY_URL',
  bankValidationUrl: 'BANK_VALIDATION_URL',
  dianUrl: 'DIAN_URL',
  satProviderUrl: 'SAT_PROVIDER_URL',
  dianAuthUrl: 'DIAN_AUTH_URL',
  dianMailboxDir: 'DIAN_MAILBOX_DIR',
};

export function outsideSystemsFromEnv(env: NodeJS.ProcessEnv = process.env): OutsideSystems {
  return Object.fromEntries(
    Object.entries(VARIABLES).map(([key, variable]) => [key, env[variable] ?? '']),
  ) as unknown as OutsideSystems;
}

/** The environment variables that point each part of the product at the same outside systems. */
export function outsideSystemsEnv(systems: OutsideSystems): Record<string, string> {
  return Object.fromEntries(
    Object.entries(VARIABLES).map(([key, variable]) => [variable, systems[key as keyof OutsideSystems] ?? '']),
  );
}
