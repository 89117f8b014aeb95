package narwhal.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import narwhal.api.InvalidRequestException;
import narwhal.api.RouterError;
import narwhal.proto.v1.Route;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every validation rule: a 400 invalid_request_error naming the field and what to fix. */
class OpenAiRequestCodecValidationTest {

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      textBlock =
          """
          C | {"prompt":"x"                       | <null>                | not valid JSON
          C | {"prompt":"x",}                     | <null>                | (line 1, column
          C | {"prompt":"x"} {}                   | <null>                | not valid JSON
          C | {"prompt":"x","prompt":"y"}         | <null>                | Duplicate field 'prompt'
          C | `   `                               | <null>                | request body is empty
          C | [1,2]                               | <null>                | must be a JSON object, got an array
          C | "text"                              | <null>                | must be a JSON object, got a string
          C | {"model":"m"}                       | prompt                | 'prompt' is required
          C | {"prompt":null}                     | prompt                | 'prompt' must not be null
          C | {"prompt":5}                        | prompt                | 'prompt' must be a string or an array, got the integer 5
          H | {"messages":[{"role":"u"}],"prompt":{}} | prompt            | 'prompt' must be a string or an array, got an object
          H | {"model":"m"}                       | messages              | 'messages' is required
          H | {"messages":null}                   | messages              | 'messages' must not be null
          H | {"messages":[]}                     | messages              | at least one message
          H | {"messages":"hi"}                   | messages              | 'messages' must be an array of objects, got a string
          H | {"messages":["hi"]}                 | messages[0]           | 'messages[0]' must be an object, got a string
          H | {"messages":[{"content":"hi"}]}     | messages[0].role      | 'messages[0].role' is required
          H | {"messages":[{"role":"user"},{"role":1}]} | messages[1].role | 'messages[1].role' must be a string, got the integer 1
          C | {"prompt":"x","messages":[1]}       | messages[0]           | must be an object
          C | {"prompt":"x","model":7}            | model                 | 'model' must be a string, got the integer 7
          C | {"prompt":"x","stream":"true"}      | stream                | 'stream' must be a boolean, got a string
          C | {"prompt":"x","stream":1}           | stream                | 'stream' must be a boolean
          C | {"prompt":"x","max_tokens":"16"}    | max_tokens            | 'max_tokens' must be an integer, got a string
          C | {"prompt":"x","max_tokens":true}    | max_tokens            | 'max_tokens' must be an integer, got a boolean
          C | {"prompt":"x","max_tokens":16.0}    | max_tokens            | 'max_tokens' must be an integer, got the number 16.0
          C | {"prompt":"x","max_tokens":-1}      | max_tokens            | max_tokens must be at least 1, got -1.
          C | {"prompt":"x","max_tokens":0}       | max_tokens            | max_tokens must be at least 1, got 0.
          H | {"messages":[{"role":"u"}],"max_tokens":0} | max_tokens     | max_tokens must be at least 1, got 0.
          C | {"prompt":"x","max_tokens":99999999999999999999} | max_tokens | signed 64-bit integer
          H | {"messages":[{"role":"u"}],"max_completion_tokens":false} | max_completion_tokens | must be an integer, got a boolean
          H | {"messages":[{"role":"u"}],"max_completion_tokens":-3} | max_completion_tokens | max_completion_tokens must be at least 1, got -3.
          H | {"messages":[{"role":"u"}],"max_completion_tokens":0} | max_completion_tokens | max_completion_tokens must be at least 1, got 0.
          C | {"prompt":"x","n":2}                | n                     | the prefill leg generates one token, so n must be 1
          C | {"prompt":"x","n":true}             | n                     | 'n' must be an integer, got a boolean
          C | {"prompt":"x","n":1.5}              | n                     | 'n' must be an integer
          C | {"prompt":"x","best_of":3}          | best_of               | 'best_of' must be 1, got 3
          C | {"prompt":"x","best_of":false}      | best_of               | must be an integer
          C | {"prompt":"x","temperature":"hot"}  | temperature           | 'temperature' must be a number, got a string
          C | {"prompt":"x","temperature":true}   | temperature           | must be a number, got a boolean
          C | {"prompt":"x","temperature":1e999}  | temperature           | must be a finite number
          C | {"prompt":"x","top_p":[]}           | top_p                 | 'top_p' must be a number, got an array
          C | {"prompt":"x","min_p":{}}           | min_p                 | must be a number
          C | {"prompt":"x","presence_penalty":"0"} | presence_penalty    | must be a number
          C | {"prompt":"x","frequency_penalty":false} | frequency_penalty | must be a number
          C | {"prompt":"x","repetition_penalty":"1"} | repetition_penalty | must be a number
          C | {"prompt":"x","top_k":0.5}          | top_k                 | 'top_k' must be an integer
          C | {"prompt":"x","seed":"42"}          | seed                  | 'seed' must be an integer, got a string
          C | {"prompt":"x","seed":18446744073709551616} | seed           | signed 64-bit integer
          C | {"prompt":"x","min_tokens":true}    | min_tokens            | must be an integer
          C | {"prompt":"x","stop":5}             | stop                  | 'stop' must be a string or an array of strings, got the integer 5
          C | {"prompt":"x","stop":["a",null]}    | stop[1]               | 'stop[1]' must be a string, got null
          C | {"prompt":"x","stream_options":true} | stream_options       | 'stream_options' must be an object
          C | {"prompt":"x","stream_options":{"include_usage":"yes"}} | stream_options.include_usage | must be a boolean
          C | {"prompt":"x","stream_options":{"continuous_usage_stats":1}} | stream_options.continuous_usage_stats | must be a boolean
          C | {"prompt":"x","vllm_xargs":{"kv_transfer_params":{}}} | vllm_xargs | must not set 'kv_transfer_params'
          C | {"prompt":"x","vllm_xargs":{"kv_cache_report_mode":1}} | vllm_xargs | must not set 'kv_cache_report_mode'
          H | {"messages":[{"role":"u"}],"vllm_xargs":{"ec_transfer_params":null}} | vllm_xargs | must not set 'ec_transfer_params'
          H | {"messages":[{"role":"u"}],"audio":{"voice":"a"}} | audio | "stream": true
          H | {"messages":[{"role":"u"}],"modalities":["text","audio"]} | modalities | must be ["text"]
          H | {"messages":[{"role":"u"}],"tools":[{"type":"function"},{"type":"code"}]} | tools[1].type | must be "function"
          """)
  void invalidBody_is400WithParamAndMessage(
      String routeCode, String body, String param, String messagePart) {
    Route route = routeCode.equals("H") ? Route.ROUTE_CHAT_COMPLETIONS : Route.ROUTE_COMPLETIONS;

    InvalidRequestException e =
        catchThrowableOfType(
            InvalidRequestException.class,
            () -> OpenAiRequestCodec.parse(body.getBytes(UTF_8), route, null));

    assertThat(e).as("no exception for %s", body).isNotNull();
    RouterError error = e.error();
    assertThat(error.status()).isEqualTo(400);
    assertThat(error.type()).isEqualTo("invalid_request_error");
    assertThat(error.code()).isNull();
    assertThat(error.param()).isEqualTo(param.equals("<null>") ? null : param);
    assertThat(error.message()).contains(messagePart);
  }
}
