package narwhal.sim;

import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static narwhal.sim.SimHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CompletionsTest {
  private static SimEngine engine;

  @BeforeAll
  static void start() {
    engine =
        SimEngine.start(
            SimOptions.builder().seed(7).prefillBaseMillis(1).interTokenMillis(1).build());
  }

  @AfterAll
  static void stop() {
    engine.close();
  }

  @Test
  void nonStreaming_returnsVllmShapeWithDeterministicText() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("one two three", 4, false), "X-Request-Id", "abc");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    JsonNode body = json(response.body());
    assertThat(body.get("id").asText()).isEqualTo("cmpl-abc");
    assertThat(body.get("object").asText()).isEqualTo("text_completion");
    assertThat(body.get("created").isIntegralNumber()).isTrue();
    assertThat(body.get("model").asText()).isEqualTo("narwhal-sim");
    JsonNode choice = body.get("choices").get(0);
    assertThat(choice.get("index").asInt()).isZero();
    assertThat(choice.get("text").asText())
        .isEqualTo(SimEngine.expectedText(7, "one two three", 4));
    assertThat(choice.get("finish_reason").asText()).isEqualTo("length");
    assertThat(choice.get("logprobs").isNull()).isTrue();
    assertThat(choice.get("stop_reason").isNull()).isTrue();
    assertThat(choice.get("prompt_logprobs").isNull()).isTrue();
    assertThat(body.get("service_tier").isNull()).isTrue();
    assertThat(body.get("system_fingerprint").isNull()).isTrue();
    assertThat(body.get("usage").get("prompt_tokens").asInt()).isEqualTo(3);
    assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(4);
    assertThat(body.get("usage").get("total_tokens").asInt()).isEqualTo(7);
    assertThat(body.get("usage").get("prompt_tokens_details").isNull()).isTrue();
    assertThat(body.has("kv_transfer_params")).isTrue();
    assertThat(body.get("kv_transfer_params").isNull()).isTrue();
  }

  @Test
  void streaming_sendsOneChunkPerTokenThenDone() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("stream me", 5, true), "X-Request-Id", "s1");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type").orElseThrow())
        .startsWith("text/event-stream");
    assertThat(response.headers().firstValue("transfer-encoding")).hasValue("chunked");
    assertThat(response.body()).endsWith("data: [DONE]\n\n");
    List<String> events = sseData(response.body());
    assertThat(events).hasSize(6);
    List<String> texts = new ArrayList<>();
    for (String event : events.subList(0, 5)) {
      JsonNode chunk = json(event);
      assertThat(chunk.get("id").asText()).isEqualTo("cmpl-s1");
      assertThat(chunk.get("object").asText()).isEqualTo("text_completion");
      assertThat(chunk.get("usage").isNull()).isTrue();
      JsonNode choice = chunk.get("choices").get(0);
      assertThat(choice.has("logprobs")).isTrue();
      assertThat(choice.has("stop_reason")).isTrue();
      texts.add(choice.get("text").asText());
    }
    assertThat(texts).isEqualTo(SimEngine.expectedTokens(7, "stream me", 5));
    assertThat(json(events.get(3)).get("choices").get(0).get("finish_reason").isNull()).isTrue();
    assertThat(json(events.get(4)).get("choices").get(0).get("finish_reason").asText())
        .isEqualTo("length");
    assertThat(events.get(5)).isEqualTo("[DONE]");
  }

  @Test
  void streaming_withStreamOptions_sendsUsageChunkBeforeDone() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("a b", 2, true, "\"stream_options\":{}"));

    List<String> events = sseData(response.body());
    assertThat(events).hasSize(4);
    JsonNode usageChunk = json(events.get(2));
    assertThat(usageChunk.get("choices").isArray()).isTrue();
    assertThat(usageChunk.get("choices")).isEmpty();
    assertThat(usageChunk.get("usage").get("prompt_tokens").asInt()).isEqualTo(2);
    assertThat(usageChunk.get("usage").get("completion_tokens").asInt()).isEqualTo(2);
    assertThat(usageChunk.get("usage").get("total_tokens").asInt()).isEqualTo(4);
    assertThat(usageChunk.get("usage").has("prompt_tokens_details")).isFalse();
    assertThat(events.get(3)).isEqualTo("[DONE]");
  }

  @Test
  void streaming_includeUsageFalse_sendsNoUsageChunk() {
    String body =
        completion("a b", 2, true, "\"stream_options\":{\"include_usage\":false}");
    List<String> events = sseData(post(engine, "/v1/completions", body).body());

    assertThat(events).hasSize(3);
    assertThat(events.get(2)).isEqualTo("[DONE]");
  }

  @Test
  void streaming_continuousUsage_putsRunningUsageOnEveryChunk() {
    String body =
        completion(
            "a b",
            2,
            true,
            "\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":true}");
    List<String> events = sseData(post(engine, "/v1/completions", body).body());

    assertThat(json(events.get(0)).get("usage").get("completion_tokens").asInt()).isEqualTo(1);
    assertThat(json(events.get(1)).get("usage").get("completion_tokens").asInt()).isEqualTo(2);
    assertThat(json(events.get(2)).get("choices")).isEmpty();
  }

  @Test
  void streamOptionsWithoutStream_is400() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("x", 2, false, "\"stream_options\":{}"));

    assertThat(response.statusCode()).isEqualTo(400);
    JsonNode error = json(response.body()).get("error");
    assertThat(error.get("message").asText())
        .isEqualTo("Stream options can only be defined when `stream=True`.");
    assertThat(error.get("type").asText()).isEqualTo("BadRequestError");
    assertThat(error.get("code").asInt()).isEqualTo(400);
    assertThat(error.has("param")).isTrue();
  }

  @Test
  void unknownModel_is404NotFound() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", "{\"model\":\"other\",\"prompt\":\"x\"}");

    assertThat(response.statusCode()).isEqualTo(404);
    JsonNode error = json(response.body()).get("error");
    assertThat(error.get("type").asText()).isEqualTo("NotFoundError");
    assertThat(error.get("message").asText()).isEqualTo("The model `other` does not exist.");
    assertThat(error.get("param").asText()).isEqualTo("model");
    assertThat(error.get("code").asInt()).isEqualTo(404);
  }

  @Test
  void malformedJson_is400() {
    HttpResponse<String> response = post(engine, "/v1/completions", "{\"prompt\": ");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response.body()).get("error").get("type").asText())
        .isEqualTo("BadRequestError");
  }

  @Test
  void missingMaxTokens_usesDefault() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", "{\"prompt\":\"default length\"}");

    JsonNode body = json(response.body());
    assertThat(body.get("usage").get("completion_tokens").asInt()).isEqualTo(16);
    assertThat(body.get("choices").get(0).get("text").asText())
        .isEqualTo(SimEngine.expectedText(7, "default length", 16));
  }

  @Test
  void tokenIdPrompt_countsIds() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", "{\"prompt\":[1,2,3,4,5],\"max_tokens\":1}");

    assertThat(json(response.body()).get("usage").get("prompt_tokens").asInt()).isEqualTo(5);
  }

  @Test
  void idComesFromBodyRequestIdOrIsRandomHex() {
    JsonNode fromBody =
        json(post(engine, "/v1/completions", completion("x", 1, false, "\"request_id\":\"rid\""))
            .body());
    JsonNode random = json(post(engine, "/v1/completions", completion("x", 1, false)).body());

    assertThat(fromBody.get("id").asText()).isEqualTo("cmpl-rid");
    assertThat(random.get("id").asText()).matches("cmpl-[0-9a-f]{32}");
  }

  @Test
  void contextTooLong_is400() {
    HttpResponse<String> response =
        post(engine, "/v1/completions", completion("x", 1_000_000, false));

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response.body()).get("error").get("message").asText())
        .contains("maximum context length is 32768");
  }

  @Test
  void unknownPath_is404Detail() {
    HttpResponse<String> response = post(engine, "/v1/embeddings", "{}");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response.body()).get("detail").asText()).isEqualTo("Not Found");
  }
}
