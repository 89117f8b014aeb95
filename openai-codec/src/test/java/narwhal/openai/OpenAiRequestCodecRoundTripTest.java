package narwhal.openai;

import static java.nio.charset.StandardCharsets.UTF_8;
import static narwhal.openai.JsonEquivalence.assertEquivalent;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Route;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code toJson(parse(x))} reproduces {@code x} for hand-picked and generated bodies. */
class OpenAiRequestCodecRoundTripTest {

  static Stream<Arguments> samples() {
    return Stream.of(
        completions("{\"model\":\"m\",\"prompt\":\"hello\"}"),
        completions("{\"prompt\":\"hello\",\"max_tokens\":16,\"stream\":true}"),
        completions("{\"prompt\":[1,2,3,9223372036854775807],\"max_tokens\":1}"),
        completions("{\"prompt\":[\"a\",\"b\"],\"echo\":true,\"logprobs\":5}"),
        completions("{\"prompt\":[[1,2],[3]],\"suffix\":null}"),
        completions("{\"prompt\":[],\"stream\":false}"),
        completions("{\"prompt\":[1,2.5]}"),
        completions("{\"prompt\":[1,true]}"),
        completions("{\"prompt\":[99999999999999999999999]}"),
        completions("{\"prompt\":\"\",\"model\":\"\"}"),
        completions("{\"prompt\":\"x\",\"seed\":4611686018427387904,\"temperature\":0.7,"
            + "\"top_p\":0.95,\"top_k\":-1,\"min_p\":0.05,\"presence_penalty\":-0.5,"
            + "\"frequency_penalty\":1.25,\"repetition_penalty\":1.1,\"min_tokens\":3,"
            + "\"stop\":[\"\\n\",\"END\"]}"),
        completions("{\"prompt\":\"x\",\"temperature\":1,\"top_p\":null,\"seed\":null,"
            + "\"stop\":null,\"max_tokens\":null,\"stream\":null,\"model\":null}"),
        completions("{\"prompt\":\"x\",\"stop\":[]}"),
        completions("{\"prompt\":\"x\",\"stream\":true,\"stream_options\":{\"include_usage\":true,"
            + "\"continuous_usage_stats\":false}}"),
        completions("{\"prompt\":\"x\",\"stream\":true,\"stream_options\":{}}"),
        completions("{\"prompt\":\"x\",\"stream\":true,\"stream_options\":{\"include_usage\":true,"
            + "\"future_knob\":[1,{\"a\":null}]}}"),
        completions("{\"prompt\":\"x\",\"stream_options\":{\"include_usage\":null}}"),
        completions("{\"prompt\":\"x\",\"stream_options\":null}"),
        completions("{\"prompt\":\"x\",\"n\":1,\"best_of\":1,\"logit_bias\":{\"50256\":-100}}"),
        completions("{\"prompt\":\"x\",\"n\":0}"),
        completions("{\"prompt\":\"x\",\"vllm_xargs\":{\"foo\":1,\"bar\":\"baz\"}}"),
        completions("{\"prompt\":\"x\",\"weird\":1.10,\"huge\":123456789012345678901234567890,"
            + "\"tiny\":1e-300,\"exp\":1E+400,\"neg\":-0.0}"),
        completions("{\"prompt\":\"snow ☃ and emoji 😀 and \\u0000 nul\",\"user\":\"ü\"}"),
        completions("{\"prompt\":\"x\",\"a\":{\"b\":{\"c\":[{\"d\":[[[]]]}],\"e\":\"\"}}}"),
        completions("{\"prompt\":\"x\",\"messages\":[{\"no_role\":1}]}"),
        completions("{\"prompt\":\"x\",\"messages\":null}"),
        chat("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"),
        chat("{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
            + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"},"
            + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}}]}],"
            + "\"max_completion_tokens\":64,\"stream\":true,"
            + "\"stream_options\":{\"include_usage\":true}}"),
        chat("{\"messages\":[{\"role\":\"user\",\"content\":\"weather?\"},"
            + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"call_1\","
            + "\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"}}]},"
            + "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"-3C\"}],"
            + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}],"
            + "\"tool_choice\":\"auto\",\"parallel_tool_calls\":false}"),
        chat("{\"messages\":[{\"role\":\"user\",\"content\":\"\",\"name\":\"bob\"},"
            + "{\"role\":\"assistant\"}],\"logprobs\":true,\"top_logprobs\":5,"
            + "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\","
            + "\"schema\":{\"type\":\"object\"},\"strict\":true}}}"),
        chat("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"prompt\":\"ignored?\","
            + "\"stop\":[\"a\"],\"seed\":-9223372036854775808,\"chat_template_kwargs\":"
            + "{\"enable_thinking\":false},\"reasoning_effort\":\"low\"}"),
        chat("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"prompt\":null,"
            + "\"stream\":true,\"audio\":{\"voice\":\"x\"},\"modalities\":[\"text\",\"audio\"],"
            + "\"tools\":[{\"type\":\"custom\"}]}"),
        chat("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"modalities\":[\"text\"],"
            + "\"audio\":null}"));
  }

  private static Arguments completions(String body) {
    return Arguments.of(Route.ROUTE_COMPLETIONS, body);
  }

  private static Arguments chat(String body) {
    return Arguments.of(Route.ROUTE_CHAT_COMPLETIONS, body);
  }

  @ParameterizedTest
  @MethodSource("samples")
  void toJson_ofParse_reproducesTheBody(Route route, String body) throws Exception {
    CompletionRequest parsed = OpenAiRequestCodec.parse(body.getBytes(UTF_8), route, null);

    assertEquivalent(OpenAiRequestCodec.toJson(parsed), expectedAfterRoundTrip(body));
  }

  @ParameterizedTest
  @MethodSource("samples")
  void parse_ofToJson_isAFixedPoint(Route route, String body) throws Exception {
    CompletionRequest once = OpenAiRequestCodec.parse(body.getBytes(UTF_8), route, "c");
    byte[] again = Json.compactBytes(OpenAiRequestCodec.toJson(once));

    assertThat(OpenAiRequestCodec.parse(again, route, "c")).isEqualTo(once);
  }

  @Test
  void generatedBodies_roundTrip() throws Exception {
    Random random = new Random(20260101L);
    for (int i = 0; i < 400; i++) {
      boolean chat = random.nextBoolean();
      ObjectNode body = RandomBodies.valid(random, chat);
      String text = Json.compact(body);
      Route route = chat ? Route.ROUTE_CHAT_COMPLETIONS : Route.ROUTE_COMPLETIONS;

      CompletionRequest parsed = OpenAiRequestCodec.parse(text.getBytes(UTF_8), route, null);

      assertEquivalent(OpenAiRequestCodec.toJson(parsed), expectedAfterRoundTrip(text));
    }
  }

  @Test
  void kvTransferParams_fromTheClient_neverSurvive() throws Exception {
    String body =
        "{\"prompt\":\"x\",\"kv_transfer_params\":{\"do_remote_prefill\":true,"
            + "\"remote_engine_id\":\"evil\",\"remote_block_ids\":[1]}}";

    CompletionRequest parsed =
        OpenAiRequestCodec.parse(body.getBytes(UTF_8), Route.ROUTE_COMPLETIONS, null);

    assertThat(parsed.getExtraFieldsMap()).doesNotContainKey("kv_transfer_params");
    assertThat(OpenAiRequestCodec.toJson(parsed).has("kv_transfer_params")).isFalse();
  }

  /** The documented normalisations: stop string to list, kv_transfer_params dropped. */
  private static JsonNode expectedAfterRoundTrip(String body) throws Exception {
    ObjectNode expected = (ObjectNode) Json.mapper().readTree(body);
    expected.remove("kv_transfer_params");
    JsonNode stop = expected.get("stop");
    if (stop != null && stop.isTextual()) {
      expected.putArray("stop").add(stop.textValue());
    }
    return expected;
  }

  /** Random valid request bodies: typed fields, nulls, unknown nested fields, odd numbers. */
  static final class RandomBodies {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final List<String> WORDS =
        List.of("", "a", "héllo", "日本語", "😀", "line\nbreak", "quote\"", "\\", "tab\t");

    static ObjectNode valid(Random r, boolean chat) {
      ObjectNode body = F.objectNode();
      if (chat) {
        ArrayNode messages = body.putArray("messages");
        int n = 1 + r.nextInt(4);
        for (int i = 0; i < n; i++) {
          messages.add(message(r));
        }
      } else {
        body.set("prompt", prompt(r));
      }
      maybe(r, () -> body.put("model", word(r)));
      maybe(r, () -> body.put("max_tokens", (long) r.nextInt(100_000)));
      maybe(r, () -> body.put("max_completion_tokens", Math.abs(r.nextLong())));
      maybe(r, () -> body.put("temperature", r.nextInt(3)));
      maybe(r, () -> body.put("top_p", r.nextDouble()));
      maybe(r, () -> body.put("top_k", r.nextInt(100) - 1));
      maybe(r, () -> body.put("min_p", new BigDecimal("0.0" + r.nextInt(10))));
      maybe(r, () -> body.put("seed", r.nextLong()));
      maybe(r, () -> body.put("presence_penalty", -2 + 4 * r.nextDouble()));
      maybe(r, () -> body.put("frequency_penalty", new BigDecimal("1.50")));
      maybe(r, () -> body.put("repetition_penalty", 1.0 + r.nextDouble()));
      maybe(r, () -> body.put("min_tokens", (long) r.nextInt(10)));
      maybe(r, () -> body.set("stop", stop(r)));
      maybe(r, () -> body.put("stream", r.nextBoolean()));
      maybe(r, () -> body.set("stream_options", streamOptions(r)));
      maybe(r, () -> body.put("n", 1));
      maybe(r, () -> body.set("logit_bias", F.objectNode().put("42", -100)));
      maybe(r, () -> body.set("x_unknown_" + r.nextInt(5), anyValue(r, 3)));
      maybe(r, () -> body.set("vllm_xargs", F.objectNode().set("k", anyValue(r, 2))));
      for (String typed : List.of("temperature", "seed", "stop", "max_tokens", "model")) {
        if (r.nextInt(12) == 0) {
          body.putNull(typed);
        }
      }
      return body;
    }

    private static JsonNode prompt(Random r) {
      switch (r.nextInt(4)) {
        case 0:
          return F.textNode(word(r));
        case 1:
          ArrayNode ids = F.arrayNode();
          for (int i = r.nextInt(6); i >= 0; i--) {
            ids.add(r.nextInt(150_000));
          }
          return ids;
        case 2:
          return F.arrayNode().add(word(r)).add(word(r));
        default:
          return F.arrayNode().add(F.arrayNode().add(1).add(2)).add(F.arrayNode().add(3));
      }
    }

    private static ObjectNode message(Random r) {
      ObjectNode m = F.objectNode().put("role", List.of("system", "user", "assistant").get(r.nextInt(3)));
      switch (r.nextInt(4)) {
        case 0:
          m.put("content", word(r));
          break;
        case 1:
          m.set("content", F.arrayNode().add(F.objectNode().put("type", "text").put("text", word(r))));
          break;
        case 2:
          m.putNull("content");
          m.set("tool_calls", F.arrayNode().add(F.objectNode().put("id", "c" + r.nextInt(9))));
          break;
        default:
          break;
      }
      maybe(r, () -> m.put("name", word(r)));
      maybe(r, () -> m.set("x_extra", anyValue(r, 2)));
      return m;
    }

    private static JsonNode stop(Random r) {
      if (r.nextBoolean()) {
        return F.textNode(word(r));
      }
      ArrayNode stops = F.arrayNode();
      for (int i = r.nextInt(3); i > 0; i--) {
        stops.add(word(r));
      }
      return stops;
    }

    private static JsonNode streamOptions(Random r) {
      ObjectNode o = F.objectNode();
      maybe(r, () -> o.put("include_usage", r.nextBoolean()));
      maybe(r, () -> o.put("continuous_usage_stats", r.nextBoolean()));
      if (r.nextInt(4) == 0) {
        o.set("unknown", anyValue(r, 1));
      }
      return o;
    }

    private static JsonNode anyValue(Random r, int depth) {
      switch (depth <= 0 ? r.nextInt(5) : r.nextInt(7)) {
        case 0:
          return F.nullNode();
        case 1:
          return F.booleanNode(r.nextBoolean());
        case 2:
          return F.numberNode(BigInteger.valueOf(r.nextLong()).shiftLeft(r.nextInt(70)));
        case 3:
          return F.numberNode(new BigDecimal(r.nextInt(10_000) + ".0" + r.nextInt(100)));
        case 4:
          return F.textNode(word(r));
        case 5:
          ArrayNode a = F.arrayNode();
          for (int i = r.nextInt(3); i > 0; i--) {
            a.add(anyValue(r, depth - 1));
          }
          return a;
        default:
          ObjectNode o = F.objectNode();
          for (int i = r.nextInt(3); i > 0; i--) {
            o.set("k" + i + word(r), anyValue(r, depth - 1));
          }
          return o;
      }
    }

    private static String word(Random r) {
      return WORDS.get(r.nextInt(WORDS.size()));
    }

    private static void maybe(Random r, Runnable action) {
      if (r.nextBoolean()) {
        action.run();
      }
    }
  }

}
