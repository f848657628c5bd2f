/**
 * V8 heap limits for the API process, on every command that starts it. Each request allocates its response several
 * times over (rows, objects, JSON text) and little of it lives on. With V8's default young generation (up to 134 MB
 * here) the API's resident memory rose to some 330 MB under load; with 16 MB semi-spaces, to 255 MB. A 256 MB old
 * space makes V8 grow the heap by smaller steps, as on a small device: 206 MB under the same loads, at the same
 * throughput. The largest body the API takes (an ERP sync of 10 MB, 50,000 records) peaks below 300 MB under it.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-old-space-size=256', '--max-semi-space-size=16'];
