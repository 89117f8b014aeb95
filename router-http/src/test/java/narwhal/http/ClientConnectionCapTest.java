package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import narwhal.config.SloConfig;
import narwhal.core.metrics.RouterMetrics;
import org.junit.jupiter.api.Test;

/** {@code serving.max_client_connections} over real sockets: past the cap, 503 and close, counted. */
class ClientConnectionCapTest extends FrontEndTestSupport {

  private static final int CAP = 3;

  @Override
  HttpFrontEndOptions options() {
    // The default timeouts (20 s, 90 s): the held connections stay open for the whole test.
    return new HttpFrontEndOptions("127.0.0.1", 0, 4096, 1 << 20).withConnectionLimits(
        HttpFrontEndOptions.DEFAULT_HEADER_TIMEOUT, HttpFrontEndOptions.DEFAULT_IDLE_TIMEOUT, CAP);
  }

  @Test
  void connectionOverTheCap_gets503AndIsClosed_andCounted_untilOneCloses() throws Exception {
    List<RawHttpConnection> held = new ArrayList<>();
    try {
      for (int i = 0; i < CAP; i++) {
        held.add(new RawHttpConnection(frontEnd.port())); // silent: no request, no admission seat
      }
      await("held connections counted", () -> frontEnd.openConnections() == CAP);

      try (RawHttpConnection extra = new RawHttpConnection(frontEnd.port())) {
        RawHttpConnection.Response response = extra.readResponse();

        assertThat(response.status()).isEqualTo(503);
        assertThat(response.headers()).containsEntry("connection", "close").containsEntry("retry-after", "1");
        assertThat(json(response.body()).path("error").path("code").asText()).isEqualTo("too_many_connections");
        assertThat(json(response.body()).path("error").path("message").asText())
            .contains("serving.max_client_connections");
        assertThat(extra.serverClosed()).isTrue();
      }
      assertThat(frontEnd.clientConnections().refused()).isEqualTo(1);
      assertThat(frontEnd.openConnections()).isEqualTo(CAP);
      assertThat(service.tickets).isEmpty();

      held.remove(0).close();
      await("a closed connection frees its place", () -> frontEnd.openConnections() == CAP - 1);
      try (RawHttpConnection next = new RawHttpConnection(frontEnd.port())) {
        next.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
        assertThat(next.readResponse().status()).isEqualTo(200);
      }
    } finally {
      for (RawHttpConnection c : held) {
        c.close();
      }
    }
    await("every connection released", () -> frontEnd.openConnections() == 0);
  }

  @Test
  void metrics_showOpenConnections_theCap_refusalsAndTimeouts() {
    RouterMetrics metrics = new RouterMetrics(new MetricRegistry(), SloConfig.of(2.0, 0.1));
    ClientConnections connections = new ClientConnections(CAP, metrics);
    connections.headerTimedOut();
    connections.idleTimedOut();
    connections.idleTimedOut();

    String text = new String(metrics.scrape(), StandardCharsets.UTF_8);

    assertThat(text).contains(
        "# TYPE narwhal_client_connections gauge\n", "narwhal_client_connections 0.0\n",
        "narwhal_client_connections_limit 3.0\n",
        "# TYPE narwhal_client_connections_refused_total counter\n",
        "narwhal_client_connections_refused_total 0.0\n",
        "narwhal_client_connections_timed_out_total{timeout=\"header\"} 1.0\n",
        "narwhal_client_connections_timed_out_total{timeout=\"idle\"} 2.0\n");
  }
}
