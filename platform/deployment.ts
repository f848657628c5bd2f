/** What every process knows of its deployment: production or not, and where integrators reach the API. */
export interface Deployment {
  /** `development` relaxes what only makes sense locally (loopback webhook receivers, response checks). */
  environment: 'development' | 'production';
  /** The API's URL as integrators reach it: links in answers and in webhook payloads. */
  publicUrl: string;
}

export function deploymentFromEnv(env: NodeJS.ProcessEnv = process.env): Deployment {
  return {
    environment: env.NODE_ENV === 'production' ? 'production' : 'development',
    publicUrl: env.PUBLIC_URL ?? `http://${env.HOST ?? '127.0.0.1'}:${Number(env.PORT ?? 3000)}`,
  };
}
