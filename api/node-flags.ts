/**
 * V8 heap limits for the API process, on every command that starts it. Each request allocates its response several
 * times over (rows, objects, JSON text) and little of it lives on; with V8's default young generation (up to 134 MB
 * here) the API's resident memory rose to some 330 MB under load, with 16 MB semi-spaces it stays near 210 MB at
 * the same throughput. The old space keeps V8's default: an ERP catalog sync may hold a 10 MB body.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];
