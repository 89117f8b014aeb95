// The official OpenAI SDK against a router with tenants: what each kind of caller sees.
//
//   NARWHAL_SDK_CONFIG='{"base_url": "http://...", "model": ..., "good_key": ..., "forbidden_key": ...}' node auth.js
//
// Calls completions.create with no key, a wrong key, the key of a tenant not allowed the model,
// and a good key; prints one JSON line with the error class (or the text) of each. TenantsTest
// checks it: AuthenticationError, AuthenticationError, PermissionDeniedError, a completion.
'use strict';

const OpenAI = require('openai');

const config = JSON.parse(process.env.NARWHAL_SDK_CONFIG || 'null');
if (!config) {
  console.error('NARWHAL_SDK_CONFIG is not set: run this from TenantsTest');
  process.exit(2);
}

async function attempt(apiKey) {
  // The SDK refuses to start without a key: for "no key" it gets a placeholder and the header is
  // removed (a null default header is left out of the request).
  const client = new OpenAI({baseURL: config.base_url + '/v1', apiKey: apiKey === null ? 'unused' : apiKey,
    defaultHeaders: apiKey === null ? {Authorization: null} : {}, maxRetries: 0, timeout: 20_000});
  try {
    const answer = await client.completions.create({model: config.model, prompt: 'sdk auth', max_tokens: 4});
    return {text: answer.choices[0].text};
  } catch (e) {
    return {error: e && e.constructor ? e.constructor.name : String(e), status: e.status || null,
      code: e.code || null, type: e.type || null};
  }
}

async function main() {
  const seen = {};
  seen.none = await attempt(null);
  seen.wrong = await attempt('nwk_wrongid0_' + 'A'.repeat(43));
  seen.forbidden = await attempt(config.forbidden_key);
  seen.good = await attempt(config.good_key);
  console.log(JSON.stringify(seen));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
