// What a SAT bulk-download request's verification means for the poller (fiscal-rules §6): EstadoSolicitud 1 accepted
// and 2 in progress keep polling; 3 finished downloads every package; 4 error, 5 rejected and 6 expired stop, except
// 5 with CodigoEstadoSolicitud 5004 ("no se encontró la solicitud"), which is an empty result, not a failure.

export interface SatExtractionView {
  /** EstadoSolicitud 1-6; null while the provider has not had SAT accept the request yet. */
  satRequestStatus: number | null;
  /** CodigoEstadoSolicitud (5000, 5002, 5003, 5004, 5005...). */
  satStatusCode: string | null;
  packageIds: string[];
  /** A failure of the provider itself (e.g. the CIEC refused at SAT's login). */
  errorCode: string | null;
}

export type ExtractionStep =
  | { kind: 'poll'; status: 'pending' | 'waiting' | 'running' }
  | { kind: 'download'; packageIds: string[] }
  | { kind: 'empty' }
  | { kind: 'failed'; errorCode: string; message: string };

const REJECTIONS: Record<string, string> = {
  '5002': 'sat_requests_exhausted',
  '5003': 'sat_request_limit_exceeded',
  '5005': 'sat_request_duplicated',
};

/** The poller's next step for an extraction as the provider reports it. */
export function extractionStep(extraction: SatExtractionView): ExtractionStep {
  if (extraction.errorCode)
    return {
      kind: 'failed',
      errorCode: extraction.errorCode,
      message: `The extraction provider reported ${extraction.errorCode}`,
    };
  const code = extraction.satStatusCode ?? 'none';
  switch (extraction.satRequestStatus) {
    case null:
      return { kind: 'poll', status: 'pending' };
    case 1:
      return { kind: 'poll', status: 'waiting' };
    case 2:
      return { kind: 'poll', status: 'running' };
    case 3:
      return extraction.packageIds.length ? { kind: 'download', packageIds: extraction.packageIds } : { kind: 'empty' };
    case 4:
      return {
        kind: 'failed',
        errorCode: 'sat_request_error',
        message: `SAT ended the request in error (EstadoSolicitud 4, CodigoEstadoSolicitud ${code})`,
      };
    case 5:
      if (code === '5004') return { kind: 'empty' };
      return {
        kind: 'failed',
        errorCode: REJECTIONS[code] ?? 'sat_request_rejected',
        message: `SAT rejected the request (EstadoSolicitud 5, CodigoEstadoSolicitud ${code})`,
      };
    case 6:
      return {
        kind: 'failed',
        errorCode: 'sat_request_expired',
        message: 'The SAT request expired before its packages were downloaded (EstadoSolicitud 6)',
      };
    default:
      return {
        kind: 'failed',
        errorCode: 'sat_unknown_state',
        message: `SAT reported an unknown EstadoSolicitud ${String(extraction.satRequestStatus)}`,
      };
  }
}
