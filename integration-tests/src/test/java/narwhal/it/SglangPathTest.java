package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimEngine;
import narwhal.sim.SimStats;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The SGLang dialect end to end: SGLang-mode simulators (2 prefill, 2 decode, {@code
 * engine.dialect: sglang}) behind the router over real HTTP. Both legs go out at once carrying one
 * rendezvous; either failing ends the other, and no leg outlives its sibling.
 */
class SglangPathTest {

  private static final String[] PREFILLS = {"p0", "p1"};
  private static final String[] DECODES = {"d0", "d1"};

  private static RoutedFleet fleet;

  @BeforeAll
  static void start() {
    fleet = RoutedFleet.start(2, 2, SglangFleets.engines(10_000),
        demo -> SglangFleets.fleetFile(demo, true, "\"first_token_timeout_s\":1"), null);
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  @BeforeEach
  void clear() {
    fleet.clearReceived();
  }

  @AfterEach
  void noLegOutlivesTheRequest() {
    awaitZero("active legs on every engine", s -> s.activeRequests(), PREFILLS, DECODES);
    fleet.assertReservationsReturnToZero();
  }

  private static String expected(String promptKey, int n) {
    return SimEngine.expectedText(0, promptKey, n);
  }

  @Test
  void completions_streaming_exactTokens_bothLegsCarryOneRendezvousNamingTheProducer() {
    RouterClient.SseResponse r = fleet.client.stream("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"hello sglang\",\"max_tokens\":7,\"stream\":true}");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.endsWithDone()).isTrue();
    assertThat(r.text()).isEqualTo(expected("hello sglang", 7));

    ReceivedRequest prefill = only(PREFILLS);
    ReceivedRequest decode = only(DECODES);
    SimEngine producer = fleet.engine(producerOf(prefill));
    JsonNode p = prefill.body();
    JsonNode d = decode.body();
    assertThat(p.path("bootstrap_host").asText()).isEqualTo("127.0.0.1");
    assertThat(p.path("bootstrap_port").asInt()).isEqualTo(producer.port());
    assertThat(p.path("bootstrap_room").isIntegralNumber()).isTrue();
    assertThat(p.path("bootstrap_room").asLong()).isNotNegative();
    for (String field : List.of("bootstrap_host", "bootstrap_port", "bootstrap_room")) {
      assertThat(d.get(field)).as(field).isEqualTo(p.get(field));
    }
    // The client streamed, so both legs are the client's very body plus the rendezvous.
    assertThat(d).isEqualTo(p);
    assertThat(p.path("max_tokens").asInt()).isEqualTo(7);
    assertThat(decode.header("x-request-id")).isNotEqualTo(prefill.header("x-request-id"));
    assertThat(producer.stats().prefills()).isPositive();
  }

  @Test
  void chat_nonStreaming_exactText_prefillGetsTheClientsBody_decodeStreams() {
    HttpResponse<String> r = fleet.client.post("/v1/chat/completions",
        "{\"model\":\"narwhal-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"what is a narwhal\"}],"
            + "\"max_tokens\":4}");

    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = json(r.body());
    assertThat(body.path("choices").path(0).path("message").path("content").asText())
        .isEqualTo(expected("what is a narwhal", 4));
    JsonNode p = only(PREFILLS).body();
    JsonNode d = only(DECODES).body();
    assertThat(p.path("stream").asBoolean(false)).isFalse();
    assertThat(p.has("stream_options")).isFalse();
    assertThat(d.path("stream").asBoolean()).isTrue();
    assertThat(d.path("stream_options").path("include_usage").asBoolean()).isTrue();
    assertThat(d.path("bootstrap_room")).isEqualTo(p.path("bootstrap_room"));
    assertThat(d.path("bootstrap_port")).isEqualTo(p.path("bootstrap_port"));
    assertThat(d.path("messages")).isEqualTo(p.path("messages"));
  }

  @Test
  void everyRequestGetsItsOwnRoom() {
    Set<Long> rooms = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      fleet.clearReceived();
      RouterClient.SseResponse r = fleet.client.stream("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"room " + i + "\",\"max_tokens\":2,\"stream\":true}");
      assertThat(r.text()).isEqualTo(expected("room " + i, 2));
      rooms.add(only(DECODES).body().path("bootstrap_room").asLong());
    }

    assertThat(rooms).hasSize(4);
  }

  @Test
  void prefillFailure_cancelsTheWaitingDecodeLeg_andTheClientGetsThePrefillError() {
    long cancelledBefore = sum(SimStats::cancelledRequests, DECODES);

    RouterClient.SseResponse r = fleet.client.stream("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"[[sim:status=500,message=prefill broke,phase=prefill]] x\","
            + "\"max_tokens\":5,\"stream\":true}");

    assertThat(r.status()).isEqualTo(502);
    JsonNode error = json(r.raw()).path("error");
    assertThat(error.path("type").asText()).isEqualTo("prefill");
    assertThat(error.path("message").asText()).contains("answered HTTP 500").contains("prefill broke");
    // The decode leg had been sent at the same time and was waiting for the KV: it was cancelled.
    assertThat(only(DECODES).body().has("bootstrap_room")).isTrue();
    awaitValue("the decode leg to be cancelled", () -> sum(SimStats::cancelledRequests, DECODES),
        cancelledBefore + 1);
  }

  @Test
  void decodeFailure_cancelsThePrefillLegWaitingForItsConsumer() {
    long cancelledBefore = sum(SimStats::cancelledRequests, PREFILLS);

    // The decode engine answers 503 only after 300 ms, so the prefill is surely waiting by then.
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"[[sim:delay-headers=300,phase=decode]] [[sim:status=503,phase=decode]] y\","
            + "\"max_tokens\":5}");

    assertThat(r.statusCode()).isEqualTo(502);
    assertThat(json(r.body()).path("error").path("type").asText()).isEqualTo("decode");
    assertThat(only(PREFILLS).body().has("bootstrap_room")).isTrue();
    awaitValue("the prefill leg to be cancelled", () -> sum(SimStats::cancelledRequests, PREFILLS),
        cancelledBefore + 1);
  }

  @Test
  void prefillThatNeverAnswers_endsBothLegsAtTheFirstTokenTimeout_asAPrefillTimeout() {
    long prefillCancelled = sum(SimStats::cancelledRequests, PREFILLS);
    long decodeCancelled = sum(SimStats::cancelledRequests, DECODES);

    HttpResponse<String> r = fleet.client.post("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"[[sim:silence-first=forever,phase=prefill]] z\",\"max_tokens\":3}");

    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(json(r.body()).path("error").path("message").asText()).contains("prefill engine");
    awaitValue("the prefill leg to be cancelled", () -> sum(SimStats::cancelledRequests, PREFILLS),
        prefillCancelled + 1);
    awaitValue("the decode leg to be cancelled", () -> sum(SimStats::cancelledRequests, DECODES),
        decodeCancelled + 1);
  }

  @Test
  void perEngineDialectOverride_servesTheSameWay() {
    try (RoutedFleet overridden = RoutedFleet.start(1, 1, SglangFleets.engines(10_000),
        demo -> SglangFleets.fleetFile(demo, false, ""), null)) {
      RouterClient.SseResponse r = overridden.client.stream("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"override\",\"max_tokens\":3,\"stream\":true}");

      assertThat(r.text()).isEqualTo(expected("override", 3));
      JsonNode p = overridden.engine("p0").received().get(0).body();
      JsonNode d = overridden.engine("d0").received().get(0).body();
      assertThat(p.path("bootstrap_port").asInt()).isEqualTo(overridden.engine("p0").port());
      assertThat(d.path("bootstrap_room")).isEqualTo(p.path("bootstrap_room"));
      assertThat(overridden.engine("d0").stats().kvPulls()).isEqualTo(1);
      overridden.assertReservationsReturnToZero();
    }
  }

  /** The one request the named engines received in this test. */
  private static ReceivedRequest only(String... iids) {
    List<ReceivedRequest> all = new ArrayList<>();
    for (String iid : iids) {
      all.addAll(fleet.engine(iid).received());
    }
    assertThat(all).hasSize(1);
    return all.get(0);
  }

  private static String producerOf(ReceivedRequest prefill) {
    for (String iid : PREFILLS) {
      if (fleet.engine(iid).received().contains(prefill)) {
        return iid;
      }
    }
    throw new AssertionError("no prefill engine received " + prefill);
  }

  private static long sum(ToLongFunction<SimStats> stat, String[]... groups) {
    long total = 0;
    for (String[] group : groups) {
      for (String iid : group) {
        total += stat.applyAsLong(fleet.engine(iid).stats());
      }
    }
    return total;
  }

  private static void awaitZero(String what, ToLongFunction<SimStats> stat, String[]... groups) {
    awaitValue(what, () -> sum(stat, groups), 0);
  }

  /** Waits (bounded, real sockets need a moment) until {@code value} reaches {@code expected}. */
  private static void awaitValue(String what, java.util.function.LongSupplier value, long expected) {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (value.getAsLong() != expected && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(value.getAsLong()).as(what).isEqualTo(expected);
  }
}
