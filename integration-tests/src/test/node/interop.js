// Narwhal gRPC interoperability check: a Node.js client (@grpc/grpc-js + @grpc/proto-loader)
// built only from the repo's published .proto files calls a running router and checks what a
// non-Java internal service relies on: streaming, the unary answer, deadlines, cancellation,
// the documented statuses and trailers, and health.
//
//   node interop.js --port 50051 [--host 127.0.0.1] [--ca CA.pem]
//
// With --ca the channel is TLS, the router's certificate verified against that CA bundle.
//
// Prints one JSON object with what it saw (the JUnit test that runs it compares the generated
// text with the simulator's) and exits 0 when every check passed, 1 naming the failed checks.
'use strict';

const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// The messages live in the proto module; the service where it is served (router-grpc).
const PROTO_ROOT = path.resolve(__dirname, '../../../../proto/src/main/protobuf');
const SERVICE_ROOT = path.resolve(__dirname, '../../../../router-grpc/src/main/protobuf');
const HEALTH_ROOT = path.resolve(__dirname, 'protos');

function arg(name, fallback) {
  const i = process.argv.indexOf('--' + name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const target = arg('host', '127.0.0.1') + ':' + arg('port', '50051');
const loaded = protoLoader.loadSync(
    ['narwhal/v1/router.proto', 'grpc/health/v1/health.proto'],
    {keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
      includeDirs: [SERVICE_ROOT, PROTO_ROOT, HEALTH_ROOT]});
const descriptors = grpc.loadPackageDefinition(loaded);
const ca = arg('ca', null);
const credentials = () => (ca === null ? grpc.credentials.createInsecure()
  : grpc.credentials.createSsl(require('node:fs').readFileSync(ca)));
const router = new descriptors.narwhal.v1.Router(target, credentials());
const health = new descriptors.grpc.health.v1.Health(target, credentials());

const failures = [];
const seen = {};

function check(name, condition, detail) {
  if (!condition) {
    failures.push(name + (detail === undefined ? '' : ': ' + JSON.stringify(detail)));
  }
}

function completion(prompt, maxTokens) {
  return {route: 'ROUTE_COMPLETIONS', model: 'narwhal-sim', prompt: {text: prompt}, max_tokens: maxTokens};
}

function trailer(metadata, key) {
  const values = metadata ? metadata.get(key) : [];
  return values.length > 0 ? String(values[0]) : null;
}

/** Streams a completion; resolves with the events, the final status and its trailers. */
function stream(request, options, onEvent) {
  return new Promise((resolve) => {
    const events = [];
    const call = router.StreamCompletion(request, new grpc.Metadata(), options || {});
    let status = null;
    call.on('data', (event) => {
      events.push(event);
      if (onEvent) {
        onEvent(event, call);
      }
    });
    call.on('error', () => {}); // the status event below carries the same outcome
    call.on('status', (s) => {
      status = s;
      resolve({events, status});
    });
  });
}

function unary(method, client, request, options) {
  return new Promise((resolve) => {
    const holder = {};
    const call = client[method](request, new grpc.Metadata(), options || {}, (error, response) => {
      holder.error = error;
      holder.response = response;
    });
    call.on('status', (s) => resolve({response: holder.response, error: holder.error, status: s}));
  });
}

function tokensOf(events) {
  return events.filter((e) => e.kind === 'token').map((e) => e.token.text);
}

async function main() {
  // Health: SERVING for the server and for the Router service.
  for (const service of ['', 'narwhal.v1.Router']) {
    const r = await unary('Check', health, {service});
    check('health ' + (service || '<server>') + ' is SERVING', r.response && r.response.status === 'SERVING', r.status);
  }

  // ListModels.
  const models = await unary('ListModels', router, {});
  check('ListModels names the served model',
      models.response && models.response.models.map((m) => m.id).includes('narwhal-sim'), models.status);

  // Streaming: tokens in order, then one done event, status OK, the request id in headers/trailers.
  const streamed = await stream(completion('node interop', 5));
  seen.stream_tokens = tokensOf(streamed.events);
  check('stream ends OK', streamed.status.code === grpc.status.OK, streamed.status);
  check('stream has 5 tokens', seen.stream_tokens.length === 5, seen.stream_tokens);
  check('stream ends with done', streamed.events.length > 0 && streamed.events[streamed.events.length - 1].kind === 'done');
  check('stream trailers carry x-request-id', trailer(streamed.status.metadata, 'x-request-id') !== null);

  // Unary: the whole answer.
  const whole = await unary('Complete', router, completion('node interop', 5));
  seen.complete_text = whole.response ? whole.response.text : null;
  check('Complete is OK', whole.status.code === grpc.status.OK, whole.status);
  check('Complete has a cmpl- id', whole.response && whole.response.id.startsWith('cmpl-'), whole.response);

  // Deadline: the engine goes silent after two tokens; the client's 700 ms deadline ends the call.
  const started = Date.now();
  const late = await stream(completion('node deadline [[sim:silence-after=2,phase=decode]]', 6),
      {deadline: new Date(Date.now() + 700)});
  seen.deadline_status = late.status.code;
  seen.deadline_tokens = tokensOf(late.events).length;
  seen.deadline_elapsed_ms = Date.now() - started;
  check('deadline is DEADLINE_EXCEEDED', late.status.code === grpc.status.DEADLINE_EXCEEDED, late.status);
  check('deadline came after the two tokens', seen.deadline_tokens === 2, seen.deadline_tokens);

  // Cancellation: the client cancels after three tokens.
  let received = 0;
  const cancelled = await stream(completion('node cancel', 400), {}, (event, call) => {
    if (event.kind === 'token' && ++received === 3) {
      call.cancel();
    }
  });
  seen.cancel_status = cancelled.status.code;
  check('cancelled call is CANCELLED', cancelled.status.code === grpc.status.CANCELLED, cancelled.status);

  // A failure before any output: the prefill engine answers 500 -> UNAVAILABLE, HTTP's message.
  const failed = await stream(completion('node fail [[sim:status=500,phase=prefill]]', 4));
  seen.failure = {code: failed.status.code, details: failed.status.details,
    http_status: trailer(failed.status.metadata, 'narwhal-http-status'),
    type: trailer(failed.status.metadata, 'narwhal-error-type')};
  check('prefill failure is UNAVAILABLE', failed.status.code === grpc.status.UNAVAILABLE, failed.status);
  check('prefill failure says the engine answered 500', /answered HTTP 500/.test(failed.status.details), failed.status.details);
  check('prefill failure trailers', seen.failure.http_status === '502' && seen.failure.type === 'prefill', seen.failure);
  check('no event before the first token', failed.events.length === 0, failed.events);

  // A failure after output: one error event, then the mapped status with the same message.
  const broken = await stream(completion('node broken [[sim:eof-after=3,phase=decode]]', 6));
  const errors = broken.events.filter((e) => e.kind === 'error');
  seen.broken = {code: broken.status.code, details: broken.status.details, error_events: errors.length};
  check('mid-stream failure sends one error event', errors.length === 1, broken.events);
  check('mid-stream failure is UNAVAILABLE', broken.status.code === grpc.status.UNAVAILABLE, broken.status);
  check('error event and status agree',
      errors.length === 1 && errors[0].error.status === 502 && errors[0].error.message === broken.status.details, errors);

  // Invalid input: the HTTP front-end's validation, as INVALID_ARGUMENT.
  const invalid = await unary('Complete', router, {route: 'ROUTE_COMPLETIONS'});
  seen.invalid = {code: invalid.status.code, details: invalid.status.details,
    param: trailer(invalid.status.metadata, 'narwhal-error-param')};
  check('missing prompt is INVALID_ARGUMENT', invalid.status.code === grpc.status.INVALID_ARGUMENT, invalid.status);
  check('missing prompt names the field', seen.invalid.param === 'prompt', seen.invalid);
}

main()
    .catch((e) => failures.push('unexpected error: ' + (e && e.stack ? e.stack : e)))
    .finally(() => {
      router.close();
      health.close();
      console.log(JSON.stringify({target, seen, failures}));
      if (failures.length > 0) {
        console.error('interop checks failed:\n  ' + failures.join('\n  '));
        process.exitCode = 1;
      } else {
        console.error('interop: all checks passed');
      }
    });
