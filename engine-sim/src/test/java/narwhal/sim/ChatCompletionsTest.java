package narwhal.sim;

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

class ChatCompletionsTest {
  private static final String MESSAGES =
      "\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
          + "{\"role\":\"user\",\"content\":\"hello there\"}]";
  private static final String PROMPT_KEY = "be brief\nhello there";

  private static SimEngine engine;

  @BeforeAll
  static void start() {
    engine =
        SimEngine.start(
            SimOptions.builder().seed(3).prefillBaseMillis(1).interTokenMillis(1).build());
  }

  @AfterAll
  static void stop() {
    engine.close();
  }

  @Test
  void streaming_sendsRoleChunkThenContentChunksThenDone() {
    String body = "{\"model\":\"narwhal-sim\"," + MESSAGES + ",\"max_tokens\":3,\"stream\":true}";
    HttpResponse<String> response =
        post(engine, "/v1/chat/completions", body, "X-Request-Id", "chat1");

    assertThat(response.statusCode()).isEqualTo(200);
    List<String> events = sseData(response.body());
    assertThat(events).hasSize(5);

    JsonNode role = json(events.get(0));
    assertThat(role.get("id").asText()).isEqualTo("chatcmpl-chat1");
    assertThat(role.get("object").asText()).isEqualTo("chat.completion.chunk");
    JsonNode roleChoice = role.get("choices").get(0);
    assertThat(roleChoice.get("delta").toString())
        .isEqualTo("{\"role\":\"assistant\",\"content\":\"\"}");
    assertThat(roleChoice.get("finish_reason").isNull()).isTrue();
    assertThat(role.has("usage")).isFalse();

    List<String> texts = new ArrayList<>();
    for (String event : events.subList(1, 4)) {
      JsonNode chunk = json(event);
      assertThat(chunk.get("id").asText()).isEqualTo("chatcmpl-chat1");
      assertThat(chunk.has("usage")).isFalse();
      JsonNode delta = chunk.get("choices").get(0).get("delta");
      assertThat(delta.size()).isEqualTo(1);
      texts.add(delta.get("content").asText());
    }
    assertThat(texts).isEqualTo(SimEngine.expectedTokens(3, PROMPT_KEY, 3));
    JsonNode middle = json(events.get(1)).get("choices").get(0);
    assertThat(middle.get("finish_reason").isNull()).isTrue();
    assertThat(middle.has("stop_reason")).isFalse();
    JsonNode last = json(events.get(3)).get("choices").get(0);
    assertThat(last.get("finish_reason").asText()).isEqualTo("length");
    assertThat(last.get("stop_reason").isNull()).isTrue();
    assertThat(events.get(4)).isEqualTo("[DONE]");
  }

  @Test
  void streaming_withIncludeUsage_endsWithUsageChunk() {
    String body =
        "{" + MESSAGES + ",\"max_tokens\":2,\"stream\":true,"
            + "\"stream_options\":{\"include_usage\":true}}";
    List<String> events = sseData(post(engine, "/v1/chat/completions", body).body());

    assertThat(events).hasSize(5);
    JsonNode usage = json(events.get(3));
    assertThat(usage.get("object").asText()).isEqualTo("chat.completion.chunk");
    assertThat(usage.get("choices")).isEmpty();
    assertThat(usage.get("usage").get("prompt_tokens").asInt()).isEqualTo(4);
    assertThat(usage.get("usage").get("completion_tokens").asInt()).isEqualTo(2);
    assertThat(events.get(4)).isEqualTo("[DONE]");
  }

  @Test
  void nonStreaming_returnsChatCompletionShape() {
    String body = "{" + MESSAGES + ",\"max_tokens\":9,\"max_completion_tokens\":2}";
    HttpResponse<String> response = post(engine, "/v1/chat/completions", body);

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode json = json(response.body());
    assertThat(json.get("object").asText()).isEqualTo("chat.completion");
    assertThat(json.get("id").asText()).startsWith("chatcmpl-");
    JsonNode choice = json.get("choices").get(0);
    JsonNode message = choice.get("message");
    assertThat(message.get("role").asText()).isEqualTo("assistant");
    assertThat(message.get("content").asText())
        .isEqualTo(SimEngine.expectedText(3, PROMPT_KEY, 2));
    assertThat(message.get("tool_calls").isArray()).isTrue();
    assertThat(message.get("refusal").isNull()).isTrue();
    assertThat(message.has("reasoning_content")).isTrue();
    assertThat(choice.get("finish_reason").asText()).isEqualTo("length");
    assertThat(choice.get("stop_reason").isNull()).isTrue();
    assertThat(json.get("usage").get("prompt_tokens").asInt()).isEqualTo(4);
    assertThat(json.get("usage").get("completion_tokens").asInt()).isEqualTo(2);
    assertThat(json.get("prompt_logprobs").isNull()).isTrue();
    assertThat(json.get("kv_transfer_params").isNull()).isTrue();
  }

  @Test
  void missingMessages_is400() {
    HttpResponse<String> response = post(engine, "/v1/chat/completions", "{\"model\":\"narwhal-sim\"}");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response.body()).get("error").get("param").asText()).isEqualTo("messages");
  }
}
