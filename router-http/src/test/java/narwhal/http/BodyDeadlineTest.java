package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.Fleet;
import narwhal.core.journal.Journal;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.core.legs.EngineClient;
import narwhal.spi.EngineDialects;
import narwhal.testing.ScriptedTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The body upload is bounded by the request's deadline: admission takes a seat on the headers, so
 * a client that sends headers then stalls must lose it at {@code serving.request_timeout_s}, with
 * a 408 and a journal row, through the real router's admission.
 */
class BodyDeadlineTest {

  private final List<Map<String, Object>> rows = new CopyOnWriteArrayList<>();
  private EventLoopGroup boss;
  private EventLoopGroup workers;
  private DisaggregatedRouter router;
  private HttpFrontEnd frontEnd;

  @BeforeEach
  void start() {
    boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    FleetConfig base = FleetConfig.of("m", List.of(
        EngineSpec.of("p0", "http://127.0.0.1:9", EngineRole.PREFILL),
        EngineSpec.of("d0", "http://127.0.0.1:9", EngineRole.DECODE)));
    FleetConfig config = base.withServing(base.serving().withRequestTimeoutS(0.3).withMaxConnections(1));
    Journal journal = new Journal() {
      @Override
      public void record(Map<String, Object> row) {
        rows.add(row);
      }

      @Override
      public void close() {}
    };
    // No request is ever submitted: the engines are never reached.
    router = new DisaggregatedRouter(config, new Fleet(config.engines()),
        new EngineClient(new ScriptedTransport(), EngineDialects.of()), journal, Clock.systemUTC(),
        new SplittableRandom(1));
    frontEnd = HttpFrontEnd.start(new HttpFrontEndOptions("127.0.0.1", 0, 4096, 1 << 20), router, boss, workers);
  }

  @AfterEach
  void stop() {
    frontEnd.close();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void headersThenStall_is408AtTheRequestDeadline_freesTheSeat_andJournalsExpired() throws Exception {
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
          + "Content-Length: 100\r\nX-Request-Id: stalled-1\r\n\r\n{\"prompt\"");

      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(408);
      var error = FrontEndTestSupport.json(response.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("request_timeout");
      assertThat(error.path("message").asText())
          .isEqualTo("Request body did not arrive within 300 ms of its headers (serving.request_timeout_s bounds the"
              + " whole request, the upload included); send the whole body right after the headers.");
      assertThat(http.serverClosed()).as("the connection closes").isTrue();
      // Freed before the answer was written.
      assertThat(router.admission().inFlight()).isZero();
      assertThat(rows).singleElement().satisfies(row -> assertThat(row)
          .containsEntry("rid", response.headers().get("x-request-id"))
          .containsEntry("client_rid", "stalled-1")
          .containsEntry("terminal", "expired")
          .containsEntry("reason", "deadline")
          .containsEntry("status", 408)
          .containsEntry("error_type", "request_timeout")
          .containsEntry("attempts", 0));
    }
  }
}
