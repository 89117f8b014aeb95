package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import narwhal.api.ResponseStart;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.Usage;
import org.junit.jupiter.api.Test;

/**
 * The whole non-streaming answer, byte for byte, with everything the assembler collects (role,
 * reasoning, refusal, tool calls, logprobs, stop reason, the engine's usage object), so moving the
 * accumulation into the shared assembler cannot change what an HTTP client receives.
 */
class WholeAnswerBytesTest {

  private static final ResponseStart START = new ResponseStart("r1", "m", 7);

  private static ChunkView chunk(boolean token, String text, String chunkJson) {
    return new ChunkView(token, 0, text, null, "", null, chunkJson, "");
  }

  @Test
  void chatAnswer_withEveryKindOfOutput_isTheSameBytes() throws Exception {
    ResponseAssembler a = new ResponseAssembler(Route.ROUTE_CHAT_COMPLETIONS, 100_000);
    a.add(new ChunkView(false, 0, "", null, "", null, "", "assistant"));
    a.add(chunk(true, "", "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"plan\"},"
        + "\"logprobs\":{\"content\":[{\"token\":\"plan\",\"logprob\":-0.25}]}}]}"));
    a.add(chunk(true, "Hi", "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\",\"refusal\":\"no\"},"
        + "\"logprobs\":{\"content\":[{\"token\":\"Hi\",\"logprob\":-1.0}]}}]}"));
    a.add(chunk(true, "", "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"c2\","
        + "\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}},{\"index\":0,\"id\":\"c1\",\"type\":\"function\","
        + "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}"));
    a.add(chunk(true, "", "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
        + "\"function\":{\"arguments\":\":1}\"}}]}}]}"));
    a.add(new ChunkView(false, 0, "", "tool_calls", "\"</call>\"", Usage.newBuilder().setPromptTokens(3)
        .setCompletionTokens(4).setTotalTokens(7).build(),
        "{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7,"
            + "\"prompt_tokens_details\":{\"cached_tokens\":2}}}", ""));

    String body = new String(a.build(START), StandardCharsets.UTF_8);

    assertThat(body).isEqualTo("{\"id\":\"chatcmpl-r1\",\"model\":\"m\",\"created\":7,\"object\":\"chat.completion\","
        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hi\","
        + "\"reasoning_content\":\"plan\",\"refusal\":\"no\",\"tool_calls\":["
        + "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}},"
        + "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]},"
        + "\"logprobs\":{\"content\":[{\"token\":\"plan\",\"logprob\":-0.25},{\"token\":\"Hi\",\"logprob\":-1.0}]},"
        + "\"finish_reason\":\"tool_calls\",\"stop_reason\":\"</call>\"}],"
        + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":2}}}");
  }

  @Test
  void completionsAnswer_withoutEngineUsage_countsTheTokens() throws Exception {
    ResponseAssembler a = new ResponseAssembler(Route.ROUTE_COMPLETIONS, 100_000);
    a.add(chunk(true, "a", ""));
    a.add(chunk(true, "b", "{\"choices\":[{\"index\":0,\"text\":\"b\",\"logprobs\":{\"tokens\":[\"b\"]}}]}"));

    String body = new String(a.build(START), StandardCharsets.UTF_8);

    assertThat(body).isEqualTo("{\"id\":\"cmpl-r1\",\"model\":\"m\",\"created\":7,\"object\":\"text_completion\","
        + "\"choices\":[{\"index\":0,\"text\":\"ab\",\"logprobs\":{\"tokens\":[\"b\"]},\"finish_reason\":null,"
        + "\"stop_reason\":null}],\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":2,\"total_tokens\":2}}");
  }
}
