package narwhal.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import narwhal.config.FleetConfig;
import narwhal.config.FleetFileParser;
import narwhal.http.HttpFrontEndOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code serving.header_timeout_s}, {@code idle_timeout_s} and {@code max_client_connections} from
 * a fleet file reach the running router's HTTP front-end.
 */
class ClientConnectionLimitsConfigTest {

  private static final String FLEET = """
      {"schema": "narwhal.fleet", "schema_version": 1, "model": "m",
       "engines": [{"iid": "p0", "url": "http://127.0.0.1:9", "role": "prefill"},
                   {"iid": "d0", "url": "http://127.0.0.1:7"}],
       "slo": {"ttft_s": 2.0, "tpot_s": 0.1},
       "serving": {"max_connections": 1, "max_client_connections": 2,
                   "header_timeout_s": 0.3, "idle_timeout_s": 0.4}}
      """;

  private EventLoopGroup boss;
  private EventLoopGroup workers;

  @BeforeEach
  void groups() {
    boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  }

  @AfterEach
  void stop() {
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void fleetKeys_becomeTheFrontEndsOptions() throws Exception {
    FleetConfig config = FleetFileParser.parse(FLEET, name -> null);

    HttpFrontEndOptions options = RouterServer.httpOptions(config, "127.0.0.1", 0);

    assertThat(options.headerTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(options.idleTimeout()).isEqualTo(Duration.ofMillis(400));
    assertThat(options.maxConnections()).isEqualTo(2);
    FleetConfig defaults = FleetFileParser.parse(FLEET.replaceAll(",\\s*\"serving\": \\{[^}]*}", ""), name -> null);
    HttpFrontEndOptions byDefault = RouterServer.httpOptions(defaults, "127.0.0.1", 0);
    assertThat(byDefault.headerTimeout()).isEqualTo(HttpFrontEndOptions.DEFAULT_HEADER_TIMEOUT);
    assertThat(byDefault.idleTimeout()).isEqualTo(HttpFrontEndOptions.DEFAULT_IDLE_TIMEOUT);
    assertThat(byDefault.maxConnections()).isEqualTo(HttpFrontEndOptions.DEFAULT_MAX_CONNECTIONS);
    assertThat(RouterServer.httpOptions(config.withServing(config.serving().withIdleTimeoutS(1e300)),
        "127.0.0.1", 0).idleTimeout().toNanos()).isPositive(); // absurdly long, yet no overflow
  }

  @Test
  void runningRouter_refusesPastTheCap_andClosesSilentConnectionsAtTheHeaderTimeout() throws Exception {
    FleetConfig config = FleetFileParser.parse(FLEET, name -> null);
    try (RouterServer server = RouterServer.start(config, "127.0.0.1", 0, null, boss, workers);
        Socket first = connect(server.port());
        Socket second = connect(server.port())) {
      // One worker loop: connections are counted in accept order, so the third is over the cap.
      try (Socket third = connect(server.port())) {
        String answer = new String(third.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(answer).startsWith("HTTP/1.1 503 ").contains("too_many_connections");
      }

      long start = System.nanoTime();
      assertThat(readUntilClosed(first.getInputStream())).isEmpty();
      assertThat(readUntilClosed(second.getInputStream())).isEmpty();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5_000);
    }
  }

  private static Socket connect(int port) throws Exception {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static String readUntilClosed(InputStream in) throws Exception {
    return new String(in.readAllBytes(), StandardCharsets.UTF_8);
  }
}
