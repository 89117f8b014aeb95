// The official OpenAI SDK against a router serving HTTPS: a completion and a streamed completion.
// The router's CA comes the way a Node.js deployment gives it, NODE_EXTRA_CA_CERTS; without it the
// SDK must refuse the connection (APIConnectionError), never fall back to something unverified.
//
//   NODE_EXTRA_CA_CERTS=ca.pem NARWHAL_SDK_CONFIG='{"base_url": "https://...", "model": ..., "prompt": ...}' node tls.js
//
// Prints one JSON line with what it saw; NodeClientsOverTlsTest compares it with the simulator's text.
'use strict';

const OpenAI = require('openai');

const config = JSON.parse(process.env.NARWHAL_SDK_CONFIG || 'null');
if (!config) {
  console.error('NARWHAL_SDK_CONFIG is not set: run this from NodeClientsOverTlsTest');
  process.exit(2);
}
const client = new OpenAI({baseURL: config.base_url + '/v1', apiKey: 'x', maxRetries: 0, timeout: 20_000});

async function main() {
  const seen = {};
  try {
    const answer = await client.completions.create({model: config.model, prompt: config.prompt, max_tokens: 4});
    seen.completion_text = answer.choices[0].text;
    const stream = await client.completions.create(
        {model: config.model, prompt: config.prompt, max_tokens: 4, stream: true});
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices.length > 0 ? chunk.choices[0].text : '';
    }
    seen.stream_text = text;
  } catch (e) {
    seen.error = e && e.constructor ? e.constructor.name : String(e);
    seen.cause = e && e.cause ? String(e.cause.code || e.cause.message || e.cause) : null;
  }
  console.log(JSON.stringify(seen));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
