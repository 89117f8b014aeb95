package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The normal path over real HTTP: client, router, a prefill engine and a decode engine. */
class DisaggregatedPathTest {

  private static RoutedFleet fleet;

  @BeforeAll
  static void start() {
    fleet = RoutedFleet.start();
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  @BeforeEach
  void clear() {
    fleet.clearReceived();
  }

  private static String expected(String promptKey, int n) {
    return String.join("", SimEngine.expectedTokens(0, promptKey, n));
  }

  @Test
  void completions_streaming_relaysExactlyTheDecodeTokensThenDone() {
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"hello narwhal\",\"max_tokens\":7,\"stream\":true}");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.contentType()).startsWith("text/event-stream");
    assertThat(r.requestId()).isNotBlank();
    assertThat(r.endsWithDone()).isTrue();
    // Exactly the decode engine's seven tokens: the prefill leg's token never reaches the client.
    assertThat(r.text()).isEqualTo(expected("hello narwhal", 7));
    for (JsonNode chunk : r.chunks()) {
      assertThat(chunk.path("object").asText()).isEqualTo("text_completion");
      assertThat(chunk.path("id").asText()).isEqualTo("cmpl-" + r.requestId());
      assertThat(chunk.path("model").asText()).isEqualTo("narwhal-sim");
    }
    assertThat(r.chunks().get(r.chunks().size() - 1).path("choices").path(0).path("finish_reason").asText())
        .isEqualTo("length");
    fleet.assertReservationsReturnToZero();
  }

  @Test
  void chat_streaming_startsWithRoleChunkAndEndsWithUsageAndDone() {
    RouterClient.SseResponse r = fleet.client.stream("/v1/chat/completions",
        "{\"model\":\"narwhal-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}],"
            + "\"max_tokens\":5,\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.endsWithDone()).isTrue();
    List<JsonNode> chunks = r.chunks();
    assertThat(chunks.get(0).path("choices").path(0).path("delta").path("role").asText()).isEqualTo("assistant");
    assertThat(chunks).allSatisfy(c -> assertThat(c.path("object").asText()).isEqualTo("chat.completion.chunk"));
    JsonNode usage = chunks.get(chunks.size() - 1).path("usage");
    assertThat(usage.path("completion_tokens").asInt()).isEqualTo(5);
    assertThat(r.text()).isEqualTo(expected("hi there", 5));
  }

  @Test
  void completions_nonStreaming_isAssembledIntoTextCompletion() {
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"whole answer please\",\"max_tokens\":6}");

    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = json(r.body());
    assertThat(body.path("object").asText()).isEqualTo("text_completion");
    assertThat(body.path("choices").path(0).path("text").asText()).isEqualTo(expected("whole answer please", 6));
    assertThat(body.path("choices").path(0).path("finish_reason").asText()).isEqualTo("length");
    assertThat(body.path("usage").path("completion_tokens").asInt()).isEqualTo(6);
    assertThat(r.headers().firstValue("x-request-id")).isPresent();
  }

  @Test
  void chat_nonStreaming_isAssembledIntoChatCompletion() {
    HttpResponse<String> r = fleet.client.post("/v1/chat/completions",
        "{\"model\":\"narwhal-sim\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
            + "{\"role\":\"user\",\"content\":\"what is a narwhal\"}],\"max_tokens\":4}");

    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = json(r.body());
    assertThat(body.path("object").asText()).isEqualTo("chat.completion");
    JsonNode message = body.path("choices").path(0).path("message");
    assertThat(message.path("role").asText()).isEqualTo("assistant");
    assertThat(message.path("content").asText()).isEqualTo(expected("be brief\nwhat is a narwhal", 4));
  }

  @Test
  void prefillLeg_isNonStreamingOneTokenWithRemoteDecodeParams() {
    fleet.client.stream("/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\"p\",\"max_tokens\":9,"
        + "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"min_tokens\":2}");

    ReceivedRequest prefill = onlyRequestTo("p0", "p1");
    JsonNode body = prefill.body();
    assertThat(prefill.path()).isEqualTo("/v1/completions");
    assertThat(body.path("stream").asBoolean(true)).isFalse();
    assertThat(body.path("max_tokens").asInt()).isEqualTo(1);
    assertThat(body.has("stream_options")).isFalse();
    assertThat(body.has("min_tokens")).isFalse();
    JsonNode kv = body.path("kv_transfer_params");
    assertThat(kv.path("do_remote_decode").asBoolean()).isTrue();
    assertThat(kv.path("do_remote_prefill").asBoolean()).isFalse();
    assertThat(kv.has("remote_engine_id") && kv.get("remote_engine_id").isNull()).isTrue();
    assertThat(prefill.header("x-request-id")).isNotBlank();
  }

  @Test
  void decodeLeg_getsProducersTransferParamsVerbatimAndClientSettings() {
    fleet.client.stream("/v1/completions", "{\"model\":\"narwhal-sim\",\"prompt\":\"settings travel\","
        + "\"max_tokens\":3,\"temperature\":0.25,\"top_p\":0.9,\"seed\":42,\"stop\":[\"zz\"],\"stream\":true,"
        + "\"logit_bias\":{\"50256\":-100},\"kv_transfer_params\":{\"remote_engine_id\":\"client-forged\"}}");

    ReceivedRequest prefill = onlyRequestTo("p0", "p1");
    ReceivedRequest decode = onlyRequestTo("d0", "d1");
    JsonNode body = decode.body();
    assertThat(body.path("max_tokens").asInt()).isEqualTo(3);
    assertThat(body.path("temperature").asDouble()).isEqualTo(0.25);
    assertThat(body.path("top_p").asDouble()).isEqualTo(0.9);
    assertThat(body.path("seed").asLong()).isEqualTo(42);
    assertThat(body.path("stop").path(0).asText()).isEqualTo("zz");
    assertThat(body.path("logit_bias").path("50256").asInt()).isEqualTo(-100);
    assertThat(body.path("stream").asBoolean()).isTrue();
    assertThat(body.path("prompt").asText()).isEqualTo("settings travel");

    // The producer's descriptor, not the client's forged one.
    JsonNode kv = body.path("kv_transfer_params");
    String producerIid = fleet.engine("p0").received().contains(prefill) ? "p0" : "p1";
    assertThat(kv.path("remote_engine_id").asText()).isEqualTo("sim-" + producerIid);
    assertThat(kv.path("do_remote_prefill").asBoolean()).isTrue();
    assertThat(kv.path("do_remote_decode").asBoolean(true)).isFalse();
    assertThat(kv.path("remote_block_ids").isArray()).isTrue();
    assertThat(kv.path("remote_block_ids")).isNotEmpty();
    assertThat(kv.path("remote_request_id").asText()).startsWith("cmpl-" + prefill.header("x-request-id"));
    assertThat(kv.path("remote_host").asText()).isEqualTo("localhost");
    assertThat(kv.path("remote_port").asInt()).isEqualTo(5600);
    assertThat(kv.path("tp_size").asInt()).isEqualTo(1);
    assertThat(kv.size()).isEqualTo(8);
    // Each leg has its own backend request id.
    assertThat(decode.header("x-request-id")).isNotEqualTo(prefill.header("x-request-id"));
  }

  @Test
  void models_listsTheFleetModel() {
    HttpResponse<String> r = fleet.client.get("/v1/models");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r.body()).path("data").path(0).path("id").asText()).isEqualTo("narwhal-sim");
  }

  /** The one request the given engines (a role's pair) received for this test. */
  private static ReceivedRequest onlyRequestTo(String a, String b) {
    List<ReceivedRequest> all = new java.util.ArrayList<>(fleet.engine(a).received());
    all.addAll(fleet.engine(b).received());
    assertThat(all).hasSize(1);
    return all.get(0);
  }
}
