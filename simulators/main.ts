// The outside systems' simulators as a process of their own, so that they can run where the product reaches them as
// it reaches real ones: on another address, in another network namespace (the production-shape suite).
//
//   node simulators/main.ts --host 10.201.0.2 --erp-secret S --erp-tls-cert cert.pem --erp-tls-key key.pem \
//     --storage-bucket B --storage-access-key-id K --storage-secret-access-key S \
//     --dian-software-id ID --dian-software-pin PIN --dian-trusted-ca ca.pem
//
// Prints one JSON line with every URL once all listen; SIGTERM stops them.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startSimulators } from './index.ts';
import { startErpReceiver } from './erp-receiver/server.ts';
import { startObjectStorageSimulator } from './object-storage/server.ts';

const { values } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    'erp-secret': { type: 'string' },
    'erp-tls-cert': { type: 'string' },
    'erp-tls-key': { type: 'string' },
    'storage-bucket': { type: 'string' },
    'storage-access-key-id': { type: 'string' },
    'storage-secret-access-key': { type: 'string' },
    'dian-software-id': { type: 'string' },
    'dian-software-pin': { type: 'string' },
    'dian-trusted-ca': { type: 'string', multiple: true },
  },
});
const host = values.host;
const tls =
  values['erp-tls-cert'] && values['erp-tls-key']
    ? { cert: readFileSync(values['erp-tls-cert']), key: readFileSync(values['erp-tls-key']) }
    : undefined;

const softwareId = values['dian-software-id'];
const simulators = await startSimulators({
  host,
  dian: {
    software: softwareId ? { [softwareId]: values['dian-software-pin'] ?? '' } : {},
    trustedCas: (values['dian-trusted-ca'] ?? []).map((file) => readFileSync(file, 'utf8')),
  },
});
const erp = values['erp-secret']
  ? await startErpReceiver({ host, secret: values['erp-secret'], ...(tls ? { tls } : {}) })
  : null;
const bucket = values['storage-bucket'];
const storage =
  bucket && values['storage-access-key-id'] && values['storage-secret-access-key']
    ? await startObjectStorageSimulator({
        host,
        bucket,
        accessKeyId: values['storage-access-key-id'],
        secretAccessKey: values['storage-secret-access-key'],
      })
    : null;

console.log(
  JSON.stringify({ ...simulators.urls, erpReceiverUrl: erp?.url ?? null, objectStorageUrl: storage?.url ?? null }),
);

const stop = async () => {
  await Promise.allSettled([simulators.stop(), erp?.stop(), storage?.stop()]);
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
