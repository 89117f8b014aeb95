package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import narwhal.api.ResponseStart;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;
import org.junit.jupiter.api.Test;

/** Assembly rules that need no socket: reasoning, logprobs, stop reasons, malformed chunks. */
class ResponseAssemblerTest {

  private static final ResponseStart START = new ResponseStart("r1", "m", 7);

  private static ChunkView token(String text, String chunkJson) {
    return new ChunkView(true, 0, text, null, "", null, chunkJson, "");
  }

  private static JsonNode build(ResponseAssembler assembler) throws Exception {
    return Json.mapper().readTree(assembler.build(START));
  }

  @Test
  void chat_reasoningOnly_leavesContentNull_andConcatenatesReasoning() throws Exception {
    ResponseAssembler assembler = new ResponseAssembler(Route.ROUTE_CHAT_COMPLETIONS, 10_000);
    assembler.add(token("", "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"thin\"}}]}"));
    assembler.add(token("", "{\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"king\"}}]}"));

    JsonNode message = build(assembler).at("/choices/0/message");

    assertThat(message.get("content").isNull()).isTrue();
    assertThat(message.get("reasoning_content").asText()).isEqualTo("thinking");
  }

  @Test
  void completions_logprobArraysConcatenate() throws Exception {
    ResponseAssembler assembler = new ResponseAssembler(Route.ROUTE_COMPLETIONS, 10_000);
    assembler.add(
        token("a", "{\"choices\":[{\"index\":0,\"text\":\"a\",\"logprobs\":{\"tokens\":[\"a\"],"
            + "\"token_logprobs\":[-0.5],\"text_offset\":[0]}}]}"));
    assembler.add(
        token("b", "{\"choices\":[{\"index\":0,\"text\":\"b\",\"logprobs\":{\"tokens\":[\"b\"],"
            + "\"token_logprobs\":[-1.25],\"text_offset\":[1]}}]}"));

    JsonNode logprobs = build(assembler).at("/choices/0/logprobs");

    assertThat(logprobs)
        .isEqualTo(
            Json.mapper()
                .readTree(
                    "{\"tokens\":[\"a\",\"b\"],\"token_logprobs\":[-0.5,-1.25],\"text_offset\":[0,1]}"));
  }

  @Test
  void stopReason_lastNonNullWins_finishReasonLastSetWins() throws Exception {
    ResponseAssembler assembler = new ResponseAssembler(Route.ROUTE_COMPLETIONS, 10_000);
    assembler.add(new ChunkView(true, 0, "a", "length", "42", null, "", ""));
    assembler.add(new ChunkView(false, 0, "", "stop", "null", null, "", ""));

    JsonNode choice = build(assembler).at("/choices/0");

    assertThat(choice.get("finish_reason").asText()).isEqualTo("stop");
    assertThat(choice.get("stop_reason").asInt()).isEqualTo(42);
    assertThat(build(assembler).at("/usage/completion_tokens").asInt()).isEqualTo(1);
  }

  @Test
  void malformedEngineChunk_isAnAssemblyFailure() {
    ResponseAssembler assembler = new ResponseAssembler(Route.ROUTE_CHAT_COMPLETIONS, 10_000);

    assertThatThrownBy(() -> assembler.add(token("x", "{not json")))
        .isInstanceOf(ResponseAssembler.AssemblyException.class);
    assertThatThrownBy(
            () -> assembler.add(token("", "{\"choices\":[{\"delta\":{\"tool_calls\":{}}}]}")))
        .isInstanceOf(ResponseAssembler.AssemblyException.class)
        .hasMessageContaining("tool_calls");
  }

  @Test
  void toolCallsWithSeveralIndexes_stayInIndexOrder() throws Exception {
    ResponseAssembler assembler = new ResponseAssembler(Route.ROUTE_CHAT_COMPLETIONS, 10_000);
    assembler.add(token("", "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"b\","
        + "\"function\":{\"name\":\"g\",\"arguments\":\"{}\"}}]}}]}"));
    assembler.add(token("", "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\","
        + "\"function\":{\"name\":\"f\",\"arguments\":\"[\"}}]}}]}"));
    assembler.add(token("", "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
        + "\"function\":{\"arguments\":\"]\"}}]}}]}"));

    JsonNode calls = build(assembler).at("/choices/0/message/tool_calls");

    assertThat(calls.get(0).get("id").asText()).isEqualTo("a");
    assertThat(calls.get(0).at("/function/arguments").asText()).isEqualTo("[]");
    assertThat(calls.get(1).get("id").asText()).isEqualTo("b");
  }
}
