// Client authentication over gRPC from a non-Java client: grpc-js over TLS calls Complete with the
// tenant's key in the `authorization` metadata (Bearer), with a wrong key, and with none.
//
//   node bearer.js --port 50051 --ca CA.pem --key nwk_... [--model narwhal-sim]
//
// Prints one JSON object with the status code (and text) of each call; TenantsTest checks it.
'use strict';

const path = require('node:path');
const fs = require('node:fs');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '../../../../proto/src/main/protobuf');
const SERVICE_ROOT = path.resolve(__dirname, '../../../../router-grpc/src/main/protobuf');

function arg(name, fallback) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const loaded = protoLoader.loadSync(['narwhal/v1/router.proto'],
    {keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
      includeDirs: [SERVICE_ROOT, PROTO_ROOT]});
const descriptors = grpc.loadPackageDefinition(loaded);
const router = new descriptors.narwhal.v1.Router('127.0.0.1:' + arg('port', '50051'),
    grpc.credentials.createSsl(fs.readFileSync(arg('ca', 'ca.pem'))));
const model = arg('model', 'narwhal-sim');

function complete(authorization) {
  const metadata = new grpc.Metadata();
  if (authorization !== null) {
    metadata.set('authorization', authorization);
  }
  const request = {route: 'ROUTE_COMPLETIONS', model: model, prompt: {text: 'grpc bearer'}, max_tokens: 4};
  return new Promise((resolve) => {
    router.Complete(request, metadata, {deadline: Date.now() + 20_000}, (error, response) => {
      if (error) {
        resolve({code: error.code, details: error.details,
          www_authenticate: error.metadata ? (error.metadata.get('www-authenticate')[0] || null) : null});
      } else {
        resolve({code: 0, text: response.text});
      }
    });
  });
}

async function main() {
  const seen = {};
  seen.none = await complete(null);
  seen.wrong = await complete('Bearer nwk_wrongid0_' + 'A'.repeat(43));
  seen.good = await complete('Bearer ' + arg('key', ''));
  console.log(JSON.stringify(seen));
  router.close();
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
