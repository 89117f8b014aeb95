// Narwhal OpenAI SDK conformance: the official `openai` npm package, unmodified, against a running
// router with simulated engines. Every route and failure class a client meets must come out of
// the SDK as the SDK's own result or typed error; whatever the SDK cannot parse is a router bug.
//
//   NARWHAL_SDK_CONFIG='{"base_url": ..., ...}' node conformance.js
//
// The config (written by OpenAiSdkConformanceTest) names two routers: `base_url`, a fleet with a
// small serving.max_request_bytes and short engine timeouts, and `admission_base_url`, a fleet
// with serving.max_connections = 1, and `priced_base_url`, a fleet with engine profiles and
// predictive admission (100 ms of prefill per prompt word, slo.ttft_s 1 s). It also carries each prompt with the text the simulator
// generates for it (SimEngine.expectedText on the Java side), so this script checks exact text.
//
// Runs the cases one after the other, prints one JSON line
// {"sdk_version", "node", "cases": [{"name", "ok", "error"?}]} and exits 0 when every case passed.
'use strict';

const OpenAI = require('openai');
const {VERSION: SDK_VERSION} = require('openai/version');

const config = JSON.parse(process.env.NARWHAL_SDK_CONFIG || 'null');
if (!config) {
  console.error('NARWHAL_SDK_CONFIG is not set: run this from OpenAiSdkConformanceTest');
  process.exit(2);
}

// No retries: each case must see the router's first answer, not a retried one.
const client = new OpenAI({baseURL: config.base_url + '/v1', apiKey: 'x', maxRetries: 0, timeout: 20_000});
const admissionClient =
    new OpenAI({baseURL: config.admission_base_url + '/v1', apiKey: 'x', maxRetries: 0, timeout: 20_000});
const pricedClient =
    new OpenAI({baseURL: config.priced_base_url + '/v1', apiKey: 'x', maxRetries: 0, timeout: 20_000});
const MODEL = config.model;
const P = config.prompts;

class CheckFailed extends Error {}

function expect(condition, what, actual) {
  if (!condition) {
    throw new CheckFailed(what + (arguments.length > 2 ? ' (got ' + JSON.stringify(actual) + ')' : ''));
  }
}

function expectEqual(actual, wanted, what) {
  expect(JSON.stringify(actual) === JSON.stringify(wanted),
      what + ': expected ' + JSON.stringify(wanted) + ', got ' + JSON.stringify(actual));
}

/** Awaits a call that must fail; returns the error it threw. */
async function failure(call) {
  try {
    const result = await call();
    throw new CheckFailed('expected an error, got a result: ' + JSON.stringify(result).slice(0, 300));
  } catch (e) {
    if (e instanceof CheckFailed) {
      throw e;
    }
    return e;
  }
}

/** An SDK error of exactly the class `type` (not a subclass), the status and the router's envelope. */
function expectApiError(e, type, status, envelope) {
  expect(e instanceof type && e.constructor === type,
      'expected ' + type.name + ', got ' + (e && e.constructor && e.constructor.name) + ': ' + (e && e.message));
  expectEqual(e.status, status, 'error.status');
  for (const [field, wanted] of Object.entries(envelope || {})) {
    if (wanted instanceof RegExp) {
      expect(wanted.test(String(e[field])), 'error.' + field + ' matches ' + wanted, e[field]);
    } else {
      expectEqual(e[field], wanted, 'error.' + field);
    }
  }
  // Every error answer to a completion route carries the router's request id.
  expect(typeof e.requestID === 'string' && e.requestID.length > 0, 'error.requestID (x-request-id)', e.requestID);
  expect(typeof e.message === 'string' && e.message.startsWith(status + ' '),
      'error.message is "<status> <router message>"', e.message);
}

function completionRequest(p, extra) {
  return {model: MODEL, prompt: p.prompt, max_tokens: p.max_tokens, ...extra};
}

function chatRequest(p, extra) {
  return {model: MODEL, messages: [{role: 'user', content: p.prompt}], max_tokens: p.max_tokens, ...extra};
}

function expectUsage(usage, p, what) {
  expectEqual(usage, {prompt_tokens: p.prompt_tokens, completion_tokens: p.max_tokens,
    total_tokens: p.prompt_tokens + p.max_tokens}, what);
}

/** Iterates a stream to its end, or to the error it throws; returns {chunks, error}. */
async function drain(stream, onChunk) {
  const chunks = [];
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      if (onChunk) {
        onChunk(chunk);
      }
    }
    return {chunks, error: null};
  } catch (e) {
    return {chunks, error: e};
  }
}

function completionText(chunks) {
  return chunks.flatMap((c) => c.choices.map((choice) => choice.text)).join('');
}

function chatText(chunks) {
  return chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content || '')).join('');
}

async function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls the admission fleet's state until `n` requests hold a seat. */
/** Waits until the priced fleet's prefill engine holds `n` prefills (its backlog is priced). */
async function awaitPricedPrefills(n) {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const state = await (await fetch(config.priced_base_url + '/narwhal/state')).json();
    if (state.engines.filter((e) => e.role === 'prefill').every((e) => e.resident.prefill === n)) {
      return;
    }
    await sleep(5);
  }
  throw new CheckFailed('the priced holder never reached its prefill engine');
}

async function awaitInFlight(n) {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    const state = await (await fetch(config.admission_base_url + '/narwhal/state')).json();
    if (state.admission.in_flight === n) {
      return;
    }
    await sleep(5);
  }
  throw new CheckFailed('the holder request never took the only admission seat');
}

const cases = {
  async 'models.list'() {
    const ids = [];
    for await (const model of client.models.list()) {
      ids.push(model.id);
    }
    expectEqual(ids, [MODEL], 'model ids');
  },

  async 'completions: non-streaming'() {
    const p = P.completion;
    const {data, response, request_id: rid} = await client.completions.create(completionRequest(p)).withResponse();
    expectEqual(response.status, 200, 'HTTP status');
    expectEqual(data.object, 'text_completion', 'object');
    expectEqual(data.id, 'cmpl-' + rid, 'id is cmpl-<x-request-id>');
    expectEqual(data.model, MODEL, 'model');
    expectEqual(data.choices.length, 1, 'choices');
    expectEqual(data.choices[0].text, p.text, 'text');
    expectEqual(data.choices[0].finish_reason, 'length', 'finish_reason');
    expectUsage(data.usage, p, 'usage');
  },

  async 'completions: streaming'() {
    const p = P.completion_stream;
    const stream = await client.completions.create(completionRequest(p, {stream: true}));
    const {chunks, error} = await drain(stream);
    expect(error === null, 'the stream ends without an error', error && error.message);
    expectEqual(chunks.map((c) => c.choices[0].text), p.tokens, 'one chunk per token');
    for (const c of chunks) {
      expectEqual(c.object, 'text_completion', 'chunk object');
      expect(c.id === chunks[0].id && c.id.startsWith('cmpl-'), 'every chunk has the same cmpl- id', c.id);
      expectEqual(c.model, MODEL, 'chunk model');
    }
    expectEqual(chunks[chunks.length - 1].choices[0].finish_reason, 'length', 'last finish_reason');
  },

  async 'completions: streaming with include_usage'() {
    const p = P.completion_usage;
    const stream = await client.completions.create(
        completionRequest(p, {stream: true, stream_options: {include_usage: true}}));
    const {chunks, error} = await drain(stream);
    expect(error === null, 'the stream ends without an error', error && error.message);
    const last = chunks[chunks.length - 1];
    expectEqual(last.choices, [], 'the usage chunk has no choices');
    expectUsage(last.usage, p, 'usage chunk');
    expect(chunks.slice(0, -1).every((c) => c.usage == null), 'only the last chunk carries usage');
    expectEqual(completionText(chunks), p.text, 'text');
  },

  async 'chat: non-streaming'() {
    const p = P.chat;
    const {data, request_id: rid} = await client.chat.completions.create(chatRequest(p)).withResponse();
    expectEqual(data.object, 'chat.completion', 'object');
    expectEqual(data.id, 'chatcmpl-' + rid, 'id is chatcmpl-<x-request-id>');
    expectEqual(data.choices[0].message.role, 'assistant', 'role');
    expectEqual(data.choices[0].message.content, p.text, 'content');
    expectEqual(data.choices[0].finish_reason, 'length', 'finish_reason');
    expectUsage(data.usage, p, 'usage');
  },

  async 'chat: streaming'() {
    const p = P.chat_stream;
    const stream = await client.chat.completions.create(chatRequest(p, {stream: true}));
    const {chunks, error} = await drain(stream);
    expect(error === null, 'the stream ends without an error', error && error.message);
    expectEqual(chunks[0].choices[0].delta.role, 'assistant', 'the first chunk carries the role');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id.startsWith('chatcmpl-')),
        'every chunk is a chat.completion.chunk with a chatcmpl- id');
    expectEqual(chatText(chunks), p.text, 'text');
    expectEqual(chunks[chunks.length - 1].choices[0].finish_reason, 'length', 'last finish_reason');
  },

  async 'chat: streaming with include_usage'() {
    const p = P.chat_usage;
    const stream = await client.chat.completions.create(
        chatRequest(p, {stream: true, stream_options: {include_usage: true}}));
    const {chunks, error} = await drain(stream);
    expect(error === null, 'the stream ends without an error', error && error.message);
    const last = chunks[chunks.length - 1];
    expectEqual(last.choices, [], 'the usage chunk has no choices');
    expectUsage(last.usage, p, 'usage chunk');
    expect(chunks.slice(0, -1).every((c) => c.usage == null), 'only the last chunk carries usage');
    expectEqual(chatText(chunks), p.text, 'text');
  },

  async 'chat: the SDK stream helper assembles the final completion'() {
    // chat.completions.stream() accumulates the deltas itself and is stricter than plain iteration.
    const p = P.chat_helper;
    const runner = client.chat.completions.stream(chatRequest(p, {stream_options: {include_usage: true}}));
    const deltas = [];
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expectEqual(final.choices[0].message.content, p.text, 'final content');
    expectEqual(final.choices[0].message.role, 'assistant', 'final role');
    expectEqual(final.choices[0].finish_reason, 'length', 'final finish_reason');
    expectEqual(deltas, p.tokens, 'content events');
    expectUsage(final.usage, p, 'final usage');
  },

  async '400: n=2 is a BadRequestError'() {
    const e = await failure(() => client.completions.create(completionRequest(P.completion, {n: 2})));
    expectApiError(e, OpenAI.BadRequestError, 400, {type: 'invalid_request_error', param: 'n', code: null});
  },

  async '400: a field of the wrong type is a BadRequestError'() {
    const e = await failure(() => client.chat.completions.create(chatRequest(P.chat, {max_tokens: 'five'})));
    expectApiError(e, OpenAI.BadRequestError, 400, {type: 'invalid_request_error', param: 'max_tokens',
      message: /^400 'max_tokens' must be an integer, got a string/});
  },

  async '400: streaming, refused before the stream starts'() {
    const e = await failure(() => client.chat.completions.create({model: MODEL, messages: [], stream: true}));
    expectApiError(e, OpenAI.BadRequestError, 400, {type: 'invalid_request_error', param: 'messages'});
  },

  async '404: an unknown model is a NotFoundError'() {
    const e = await failure(() => client.chat.completions.create({...chatRequest(P.chat), model: 'gpt-4o'}));
    expectApiError(e, OpenAI.NotFoundError, 404, {type: 'invalid_request_error', code: 'model_not_found',
      message: /^404 The model `gpt-4o` does not exist; this router serves `narwhal-sim`\./});
  },

  async '413: a body over serving.max_request_bytes is an APIError with status 413'() {
    // Far over the limit, as a real oversized prompt is: the router answers on the Content-Length
    // while the SDK is still sending, and must not lose the answer by resetting the connection.
    const prompt = 'x'.repeat(8 << 20);
    const e = await failure(() => client.completions.create({model: MODEL, prompt, max_tokens: 1}));
    expectApiError(e, OpenAI.APIError, 413, {type: 'request_too_large',
      message: new RegExp('^413 Request body exceeds the limit of ' + config.max_request_bytes + ' bytes')});
  },

  async '429: the in-flight limit is a RateLimitError with Retry-After'() {
    const p = P.holder;
    const holder = admissionClient.completions.create(completionRequest(p));
    holder.catch(() => {}); // awaited below; keeps an early failure from being unhandled
    await awaitInFlight(1);
    const e = await failure(() => admissionClient.completions.create(completionRequest(P.completion)));
    expectApiError(e, OpenAI.RateLimitError, 429, {type: 'server_overloaded_error',
      message: /^429 router in-flight limit reached/});
    expectEqual(e.headers.get('retry-after'), '1', 'Retry-After header via error.headers');
    expectEqual((await holder).choices[0].text, p.text, 'the request holding the seat still completes');
  },

  async '429: a predictive refusal is a RateLimitError, with a priced Retry-After for the queue and none for the prompt'() {
    const p = P.priced_holder;
    const holder = pricedClient.completions.create(completionRequest(p));
    holder.catch(() => {});
    await awaitPricedPrefills(1);
    // 0.4 s queued + 0.7 s of its own: over the 1 s budget, by less than a second.
    const queued = await failure(() => pricedClient.completions.create(completionRequest(P.priced_queue)));
    expectApiError(queued, OpenAI.RateLimitError, 429, {type: 'server_overloaded_error', code: null, param: null,
      message: /^429 projected time to first token .* is over the TTFT budget of 1 s/});
    expectEqual(queued.headers.get('retry-after'), '1', 'Retry-After header via error.headers');
    const long = await failure(() => pricedClient.chat.completions.create(chatRequest(P.priced_prompt)));
    expectApiError(long, OpenAI.RateLimitError, 429, {type: 'server_overloaded_error', code: null, param: null,
      message: /^429 prompt too long for the latency target/});
    expectEqual(long.headers.get('retry-after'), null, 'no Retry-After: waiting cannot help');
    expectEqual((await holder).choices[0].text, p.text, 'the request holding the engine still completes');
  },

  async '502: an engine error before output is an InternalServerError'() {
    const e = await failure(() => client.completions.create(completionRequest(P.prefill_500)));
    expectApiError(e, OpenAI.InternalServerError, 502, {type: 'prefill', message: /answered HTTP 500/});
  },

  async '502: streaming, the engine error comes back before the stream starts'() {
    const e = await failure(() => client.chat.completions.create(chatRequest(P.prefill_500, {stream: true})));
    expectApiError(e, OpenAI.InternalServerError, 502, {type: 'prefill', message: /answered HTTP 500/});
  },

  async '504: no first token in time is an InternalServerError'() {
    const e = await failure(() => client.completions.create(completionRequest(P.first_token_silence, {stream: true})));
    expectApiError(e, OpenAI.InternalServerError, 504, {type: 'decode', message: /^504 no first token within/});
  },

  async '504: non-streaming chat, the same'() {
    const e = await failure(() => client.chat.completions.create(chatRequest(P.first_token_silence)));
    expectApiError(e, OpenAI.InternalServerError, 504, {type: 'decode', message: /^504 no first token within/});
  },

  async 'mid-stream engine error: the stream iterator throws after the first tokens'() {
    const p = P.mid_stream_error;
    const stream = await client.completions.create(completionRequest(p, {stream: true}));
    const {chunks, error} = await drain(stream);
    expectEqual(chunks.map((c) => c.choices[0].text), p.tokens, 'the tokens before the failure');
    expectMidStreamError(error, 500, /Internal server error/);
  },

  async 'mid-stream silence: the chat stream iterator throws a 504 after the first tokens'() {
    const p = P.mid_stream_silence;
    const stream = await client.chat.completions.create(chatRequest(p, {stream: true}));
    const {chunks, error} = await drain(stream);
    expectEqual(chatText(chunks), p.text, 'the text before the failure');
    expectMidStreamError(error, 504, /^engine went silent between tokens/);
  },
};

/**
 * The router's terminal error event, as the SDK exposes it: an APIError thrown from the iterator,
 * with no HTTP status (the response was 200) and the envelope's fields, `code` being the status.
 */
function expectMidStreamError(e, code, message) {
  expect(e !== null, 'the stream iterator throws');
  expect(e.constructor === OpenAI.APIError, 'expected APIError, got ' + e.constructor.name + ': ' + e.message);
  expectEqual(e.status, undefined, 'error.status (the stream was already 200)');
  expectEqual(e.code, code, 'error.code (the failure\'s HTTP status)');
  expectEqual(e.param, null, 'error.param');
  expect(typeof e.type === 'string' && e.type.length > 0, 'error.type names the failure', e.type);
  expect(message.test(e.message), 'error.message matches ' + message, e.message);
  expect(typeof e.requestID === 'string' && e.requestID.length > 0, 'error.requestID', e.requestID);
}

async function main() {
  const only = process.argv.slice(2);
  const results = [];
  for (const [name, run] of Object.entries(cases)) {
    if (only.length > 0 && !only.includes(name)) {
      continue;
    }
    const started = Date.now();
    try {
      await run();
      results.push({name, ok: true, ms: Date.now() - started});
    } catch (e) {
      const error = e instanceof CheckFailed ? e.message
          : 'threw ' + (e && e.constructor && e.constructor.name) + ': ' + (e && e.stack || e);
      results.push({name, ok: false, ms: Date.now() - started, error});
    }
  }
  console.log(JSON.stringify({sdk_version: SDK_VERSION, node: process.version, cases: results}));
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
