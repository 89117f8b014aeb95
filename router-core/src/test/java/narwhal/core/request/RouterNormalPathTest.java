package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialect;
import org.junit.jupiter.api.Test;

/** A request that succeeds: placement, the two legs, what the client sees and the journal row. */
class RouterNormalPathTest {

  private static final String CHAT_STREAM =
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";

  @Test
  void request_chatStream_prefillsOnP1DecodesOnD1AndCompletes() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    Client c = r.submit(OpenAiWire.chat(CHAT_STREAM));

    assertThat(r.transport.calls()).hasSize(1);
    Call prefill = r.call(0);
    assertThat(r.iidOf(prefill)).isEqualTo("p1");
    assertThat(RouterFixture.backendId(prefill)).isEqualTo(c.handle().requestId() + "-p1");
    assertThat(r.fleet.get("p1").residentPrefill()).isEqualTo(1);

    r.loop.advanceMillis(100);
    r.prefillOk(prefill);

    assertThat(r.transport.calls()).hasSize(2);
    Call decode = r.call(1);
    assertThat(r.iidOf(decode)).isEqualTo("d1");
    assertThat(RouterFixture.backendId(decode)).isEqualTo(c.handle().requestId() + "-d1");
    assertThat(decode.request.path()).isEqualTo("/v1/chat/completions");
    assertThat(OpenAiWire.tree(decode.body()).path("kv_handoff").path("engine_id").asText())
        .isEqualTo("engine-p1");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.fleet.get("d1").residentDecode()).isEqualTo(1);

    decode.sse().event(OpenAiWire.chatRole());
    assertThat(c.sink().log).isEmpty();

    r.loop.advanceMillis(50);
    decode.event(OpenAiWire.chatContent("Hi"));
    assertThat(c.sink().log).containsExactly("start", "metadata", "token:Hi");
    assertThat(c.sink().events.get(0).getMetadata().getRole()).isEqualTo("assistant");
    assertThat(c.sink().start.requestId()).isEqualTo(c.handle().requestId());
    assertThat(c.sink().start.model()).isEqualTo("m");
    assertThat(c.sink().start.createdEpochSeconds()).isEqualTo(RouterFixture.NOW.getEpochSecond());

    decode.event(OpenAiWire.chatFinish("stop")).event(OpenAiWire.usage(4, 1)).event("[DONE]").end();

    assertThat(c.sink().log).containsExactly("start", "metadata", "token:Hi", "metadata", "metadata", "complete");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
    assertThat(r.loop.pendingTasks()).isZero();

    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("terminal", "completed").containsEntry("status", 200)
        .containsEntry("rid", c.handle().requestId()).containsEntry("route", "chat").containsEntry("stream", true)
        .containsEntry("prefill_iid", "p1").containsEntry("decode_iid", "d1").containsEntry("crossed", true)
        .containsEntry("attempts", 1).containsEntry("output_len", 1).containsEntry("ttft_s", 0.1)
        .containsEntry("first_byte_s", 0.15).containsEntry("reason", null);
    assertThat((double) row.get("ttft_s")).isLessThanOrEqualTo((double) row.get("first_byte_s"));
    assertThat((List<?>) row.get("attempt_failures")).isEmpty();
  }

  @Test
  void placement_concurrentRequests_prefillGoesToLeastLoadedThenLowestIid() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());

    r.submitCompletion();
    r.submitCompletion();

    assertThat(r.transport.calls()).extracting(r::iidOf).containsExactly("p1", "p2");
    assertThat(r.fleet.get("p1").residentPrefill()).isEqualTo(1);
    assertThat(r.fleet.get("p2").residentPrefill()).isEqualTo(1);
  }

  @Test
  void placement_twoBothEngines_decodeAvoidsTheProducer() {
    RouterFixture r = new RouterFixture(FleetConfig.of("m", List.of(
        TestDialect.engine("e1", "http://10.0.0.1:8000", EngineRole.BOTH),
        TestDialect.engine("e2", "http://10.0.0.2:8000", EngineRole.BOTH))));
    r.submitCompletion();

    r.prefillOk(r.call(0));

    assertThat(r.iidOf(r.call(0))).isEqualTo("e1");
    assertThat(r.iidOf(r.call(1))).isEqualTo("e2");
    assertThat(OpenAiWire.tree(r.call(1).body()).has("kv_handoff")).isTrue();
  }

  @Test
  void request_nonStreamingClient_decodeLegStreamsAndAsksForUsage() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    Client c = r.submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":8}"));
    r.prefillOk(r.call(0));

    JsonNode decodeBody = OpenAiWire.tree(r.call(1).body());
    assertThat(decodeBody.get("stream").asBoolean()).isTrue();
    assertThat(decodeBody.get("stream_options")).isEqualTo(OpenAiWire.tree("{\"include_usage\":true}"));
    assertThat(decodeBody.get("max_tokens").asInt()).isEqualTo(8);
    assertThat(OpenAiWire.tree(r.call(0).body()).get("stream").asBoolean()).isFalse();

    r.call(1).sse().event(OpenAiWire.completionToken("a")).event(OpenAiWire.usage(2, 1)).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "metadata", "complete");
    assertThat(r.row()).containsEntry("stream", false).containsEntry("terminal", "completed");
  }

  @Test
  void request_singleBothEngine_decodesOnTheSameEngineWithoutTransferParams() {
    RouterFixture r = new RouterFixture(FleetConfig.of("m", List.of(
        TestDialect.engine("e1", "http://10.0.0.1:8000", EngineRole.BOTH))));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));

    Call decode = r.call(1);
    assertThat(r.iidOf(decode)).isEqualTo("e1");
    assertThat(OpenAiWire.tree(decode.body()).has("kv_handoff")).isFalse();

    decode.sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.row()).containsEntry("crossed", false).containsEntry("decode_iid", "e1");
  }
}
