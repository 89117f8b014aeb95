package narwhal.it;

import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.Status;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import narwhal.config.EngineTlsConfig;
import narwhal.testing.ClientText;
import narwhal.config.FleetConfig;
import narwhal.proto.v1.StreamEvent;
import narwhal.sim.SimOptions;
import narwhal.sim.SimTls;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The "never leak" rule: over real sockets, with simulated engines failing in each way a network
 * can (connection refused, a TLS handshake that fails, a reset mid-stream, an unusable KV handoff
 * descriptor), every error a client reads — the HTTP envelope's message, the SSE error event, the
 * gRPC status description and error event — names the engine by its iid and nothing internal: no
 * address, no port, no URL, no Java exception or class. The journal keeps the detail for operators.
 */
class ClientErrorsRevealNothingTest {

  @TempDir Path dir;

  /** Every failure here is deliberate: no breaker, liveness or retry may change what the client sees. */
  private static UnaryOperator<FleetConfig> steady(UnaryOperator<FleetConfig> more) {
    return c -> more.apply(c
        .withServing(c.serving().withMaxAttempts(1))
        .withRecovery(c.recovery().withEjectAfter(1_000_000).withLivenessMisses(1_000_000)));
  }

  private static String body(String prompt, boolean stream) {
    ObjectNode body = RouterClient.JSON.createObjectNode();
    body.put("model", RoutedFleet.MODEL);
    body.put("prompt", prompt);
    body.put("max_tokens", 6);
    body.put("stream", stream);
    return body.toString();
  }

  private static String fault(String directive) {
    return "fault [[sim:" + directive + "]]";
  }

  /**
   * The client's text names {@code iid} and nothing internal ({@link ClientText}): the rule the
   * conformance kit holds every adapter's failure messages to as well.
   */
  static void revealsNothingInternal(String clientText, String iid) {
    assertThat(ClientText.leaks(clientText, iid)).as("what the client read: %s", clientText).isEmpty();
  }

  /** The HTTP answer, plain or streamed: every error message in it. */
  private static List<String> httpMessages(RouterClient.SseResponse r) {
    List<String> out = new ArrayList<>();
    if (r.status() != 200) {
      out.add(json(r.raw()).path("error").path("message").asText());
    }
    for (String d : r.data()) {
      if (!d.equals("[DONE]") && json(d).has("error")) {
        out.add(json(d).path("error").path("message").asText());
      }
    }
    return out;
  }

  /** Both front-ends, streamed and whole: every error text a client reads, at least one per call. */
  private static List<String> everyClientText(RoutedFleet fleet, String prompt) throws InterruptedException {
    List<String> texts = new ArrayList<>();
    RouterClient.SseResponse streamed = fleet.client.stream("/v1/completions", body(prompt, true));
    assertThat(httpMessages(streamed)).as("streamed answer %s", streamed.raw()).isNotEmpty();
    texts.addAll(httpMessages(streamed));
    texts.add(errorMessage(fleet.client.post("/v1/completions", body(prompt, false))));
    try (GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      GrpcRouterClient.Outcome<StreamEvent> stream = grpc.stream(GrpcRouterClient.completion(prompt, 6));
      assertThat(stream.status().getCode()).isNotEqualTo(Status.Code.OK);
      texts.add(stream.status().getDescription());
      stream.errorEvents().forEach(e -> texts.add(e.getError().getMessage()));
      GrpcRouterClient.Outcome<?> whole = grpc.complete(GrpcRouterClient.completion(prompt, 6));
      assertThat(whole.status().getCode()).isNotEqualTo(Status.Code.OK);
      texts.add(whole.status().getDescription());
    }
    return texts;
  }

  private static String errorMessage(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isGreaterThanOrEqualTo(500);
    return json(r.body()).path("error").path("message").asText();
  }

  @ParameterizedTest
  @ValueSource(strings = {"p0", "d0"})
  void connectionRefused_namesTheEngine_andTheJournalKeepsItsUrl(String closed) throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), steady(c -> c), null)) {
      java.net.URI url = fleet.fleet.config().engines().stream().filter(e -> e.iid().equals(closed)).findFirst()
          .orElseThrow().url();
      fleet.engine(closed).close(); // its port now refuses connections

      List<String> texts = everyClientText(fleet, "refused");

      String phase = closed.startsWith("p") ? "prefill" : "decode";
      assertThat(texts).allSatisfy(t -> revealsNothingInternal(t, closed))
          .allSatisfy(t -> assertThat(t).isEqualTo(phase + " engine " + closed + " refused the connection"));
      JsonNode row = fleet.journal().awaitRequestRows(4).get(0);
      assertThat(row.path("reason").asText()).isEqualTo("engine_unreachable");
      assertThat(row.path("error").asText()).as("the journal's error is what the client was told")
          .isEqualTo(texts.get(0));
      assertThat(row.path("attempt_failures").get(0).path("message").asText())
          .as("the operator's detail keeps the address").contains(url.getHost() + ":" + url.getPort());
    }
  }

  @Test
  void tlsHandshakeFailure_namesTheEngineAndTheProblem() throws Exception {
    TestCertificates ca = TestCertificates.create(dir);
    SimOptions expired = RoutedFleet.fastEngines()
        .tls(new SimTls(ca.expiredServer().certFile(), ca.expiredServer().keyFile())).build();
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, expired, steady(c -> c.withEngine(
        c.engine().withTls(EngineTlsConfig.defaults().withCaBundle(ca.caFile())))), null)) {
      List<String> texts = everyClientText(fleet, "tls");

      assertThat(texts).allSatisfy(t -> revealsNothingInternal(t, "p0"))
          .allSatisfy(t -> assertThat(t).isEqualTo("prefill engine p0 failed the TLS handshake: certificate expired"));
    }
  }

  @Test
  void resetMidStream_andUnusableDescriptors_nameTheEngine() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), steady(c -> c), null)) {
      List<String> reset = everyClientText(fleet, fault("reset-after=2,phase=decode"));
      assertThat(reset).allSatisfy(t -> revealsNothingInternal(t, "d0"))
          .allSatisfy(t -> assertThat(t).contains("closed the connection"));

      for (String descriptor : List.of("kv-bad-block-ids", "kv-wrong-connector", "kv-missing-engine-id")) {
        List<String> texts = everyClientText(fleet, fault(descriptor));
        assertThat(texts).as(descriptor).allSatisfy(t -> revealsNothingInternal(t, "p0"))
            .allSatisfy(t -> assertThat(t).startsWith("unusable KV handoff from prefill engine p0"));
      }
    }
  }
}
