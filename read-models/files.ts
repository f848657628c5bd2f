import { PUBLIC_PREFIX } from '../platform/api-paths.ts';

/** Stored files are served by the API to their owning company only, under this URL. */
export const fileUrl = (publicUrl: string, storageKey: string) => `${publicUrl}${PUBLIC_PREFIX}/files/${storageKey}`;
