package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.Completion;
import narwhal.sim.ReceivedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Following a request into the engines over real sockets: each engine sees the router's rid in
 * its {@code X-Request-Id} ({@code <rid>-p1}, {@code <rid>-d1}) and the request's W3C trace
 * context, the client's when valid (same trace, each leg its own parent) or a new one.
 */
class TraceContextTest {

  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CLIENT = "00-" + TRACE + "-00f067aa0ba902b7-01";
  private static final String VALID = "00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}";
  private static final String BODY = "{\"model\":\"narwhal-sim\",\"prompt\":\"trace me\",\"max_tokens\":3}";

  private static RoutedFleet fleet;
  private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void start() {
    fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), c -> c, null);
  }

  @AfterAll
  static void stop() {
    fleet.close();
  }

  @BeforeEach
  void clear() {
    fleet.clearReceived();
  }

  @Test
  void aClientTraceparentReachesBothEngines_sameTrace_differentParents_andTheIdsAreTheRids() throws Exception {
    HttpResponse<String> r = post(Map.of("traceparent", CLIENT, "tracestate", "congo=t61rcWkgMzE"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    String rid = r.headers().firstValue("x-request-id").orElseThrow();

    ReceivedRequest prefill = only("p0");
    ReceivedRequest decode = only("d0");
    assertThat(prefill.header("X-Request-Id")).isEqualTo(rid + "-p1");
    assertThat(decode.header("X-Request-Id")).isEqualTo(rid + "-d1");
    for (ReceivedRequest leg : List.of(prefill, decode)) {
      assertThat(leg.header("traceparent")).matches("00-" + TRACE + "-[0-9a-f]{16}-01").isNotEqualTo(CLIENT);
      assertThat(leg.header("tracestate")).isEqualTo("congo=t61rcWkgMzE");
    }
    assertThat(prefill.header("traceparent")).isNotEqualTo(decode.header("traceparent"));

    narwhal.testing.Poll.until("the request's journal row", () -> fleet.journal().rows().stream()
        .anyMatch(j -> j.path("rid").asText().equals(rid)));
    JsonNode row = fleet.journal().row(rid);
    assertThat(row.path("trace_id").asText()).isEqualTo(TRACE);
    JsonNode attempt = row.path("attempt_legs").get(0);
    assertThat(attempt.path("prefill_backend_id").asText()).isEqualTo(rid + "-p1");
    assertThat(attempt.path("decode_backend_id").asText()).isEqualTo(rid + "-d1");
    assertThat(attempt.path("outcome").asText()).isEqualTo("completed");
  }

  @Test
  void withoutATraceparent_bothEnginesGetANewValidOne_ofOneTrace() throws Exception {
    assertThat(fleet.router.router().tracing().enabled()).as("no OTEL_* configured: no SDK").isFalse();
    assertThat(post(Map.of()).statusCode()).isEqualTo(200);
    assertNewTrace();
  }

  @Test
  void anInvalidTraceparentIsReplaced_andItsTracestateDropped() throws Exception {
    String uppercase = "00-" + TRACE.toUpperCase() + "-00f067aa0ba902b7-01";
    assertThat(post(Map.of("traceparent", uppercase, "tracestate", "congo=t61rcWkgMzE")).statusCode()).isEqualTo(200);
    assertNewTrace();
    assertThat(only("p0").header("tracestate")).isNull();
  }

  @Test
  void grpcMetadataCarriesTheTraceparentToBothEngines() throws Exception {
    GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort());
    try {
      Metadata headers = new Metadata();
      headers.put(Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER), CLIENT);
      Completion c = RouterGrpc.newBlockingStub(grpc.channel)
          .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
          .withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS)
          .complete(GrpcRouterClient.completion("trace me", 3));
      assertThat(c.getText()).isNotEmpty();
    } finally {
      grpc.close();
    }
    assertThat(only("p0").header("traceparent")).matches("00-" + TRACE + "-[0-9a-f]{16}-01");
    assertThat(only("d0").header("traceparent")).matches("00-" + TRACE + "-[0-9a-f]{16}-01")
        .isNotEqualTo(only("p0").header("traceparent"));
  }

  private static void assertNewTrace() {
    String prefill = only("p0").header("traceparent");
    String decode = only("d0").header("traceparent");
    assertThat(prefill).matches(VALID).doesNotContain(TRACE);
    assertThat(decode).matches(VALID);
    assertThat(decode.substring(3, 35)).isEqualTo(prefill.substring(3, 35));
    assertThat(decode).isNotEqualTo(prefill);
  }

  private static ReceivedRequest only(String iid) {
    return fleet.engine(iid).received().stream()
        .filter(r -> r.method().equals("POST"))
        .reduce((a, b) -> {
          throw new AssertionError(iid + " received more than one request: " + a + ", " + b);
        })
        .orElseThrow(() -> new AssertionError(iid + " received no request"));
  }

  private static HttpResponse<String> post(Map<String, String> headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.router.port() + "/v1/completions"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(BODY));
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
