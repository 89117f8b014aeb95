package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.config.EngineTlsConfig;
import narwhal.config.FleetConfig;
import narwhal.server.DemoFleet;
import narwhal.server.Preflight;
import narwhal.server.PreflightReport;
import narwhal.sim.SimEngine;
import narwhal.sim.SimTls;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The router in front of engine-sims serving TLS: completions and streams over https:// legs,
 * and each certificate problem as preflight reports it and as a request meets it (a 502, mapped
 * as any connection failure; the journal says what went wrong).
 */
class EngineTlsTest {

  private static final String COMPLETION = "{\"model\":\"narwhal-sim\",\"prompt\":\"tls engines\",\"max_tokens\":4}";

  @TempDir Path dir;
  private TestCertificates ca;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @BeforeEach
  void setUp() {
    ca = TestCertificates.create(dir);
    logs.start();
    root.addAppender(logs);
  }

  @AfterEach
  void tearDown() {
    root.detachAppender(logs);
  }

  private static SimTls served(TestCertificates.Issued certificate) {
    return new SimTls(certificate.certFile(), certificate.keyFile());
  }

  private FleetConfig trustingTheCa(FleetConfig config) {
    return config.withEngine(config.engine().withTls(EngineTlsConfig.defaults().withCaBundle(ca.caFile())));
  }

  private List<String> warnings() {
    return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void completionsAndStreams_overHttpsEngines() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().tls(served(ca.server())).build(),
        this::trustingTheCa, null)) {
      assertThat(fleet.fleet.config().engines()).allSatisfy(e -> assertThat(e.url().getScheme()).isEqualTo("https"));

      HttpResponse<String> response = fleet.client.post("/v1/completions", COMPLETION);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(RouterClient.json(response.body()).at("/choices/0/text").asText())
          .isEqualTo(SimEngine.expectedText(0, "tls engines", 4));

      RouterClient.SseResponse stream = fleet.client.stream("/v1/completions",
          COMPLETION.replace("}", ",\"stream\":true}"));
      assertThat(stream.text()).isEqualTo(SimEngine.expectedText(0, "tls engines", 4));
      assertThat(fleet.engine("p0").stats().requests()).isGreaterThanOrEqualTo(2);
      assertThat(warnings()).noneMatch(w -> w.contains("verify_hostname"));
    }
  }

  @Test
  void preflight_namesEachCertificateProblem_withTheEnginesIidAndUrl() {
    TestCertificates stranger = TestCertificates.create(dir.resolve("stranger"), "stranger-ca");
    assertPreflightLine(served(ca.expiredServer()), "certificate expired: GET https://127.0.0.1:",
        "renew the engine's certificate");
    assertPreflightLine(served(ca.wrongHostServer()), "certificate does not match host: GET https://127.0.0.1:",
        "engine.tls.verify_hostname=false");
    assertPreflightLine(served(stranger.server()), "certificate signed by an unknown CA: GET https://127.0.0.1:",
        "set engine.tls.ca_bundle");
  }

  private void assertPreflightLine(SimTls engineCertificate, String problem, String fix) {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (DemoFleet fleet = DemoFleet.start(1, 1, RoutedFleet.fastEngines().tls(engineCertificate).build(), group)) {
      PreflightReport report = Preflight.run(trustingTheCa(fleet.config()));

      assertThat(report.passed()).isFalse();
      String p0 = fleet.config().engines().get(0).url().toString();
      assertThat(report.lines()).anySatisfy(line -> assertThat(line)
          .startsWith("FAIL p0  health check: " + problem)
          .contains(p0 + "/health")
          .contains(fix));
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void anExpiredEngineCertificate_failsTheRequestAs502_andTheJournalSaysWhy() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1,
        RoutedFleet.fastEngines().tls(served(ca.expiredServer())).build(), this::trustingTheCa, null)) {
      HttpResponse<String> response = fleet.client.post("/v1/completions", COMPLETION);

      assertThat(response.statusCode()).isEqualTo(502);
      JsonNode error = RouterClient.json(response.body()).path("error");
      // As every connection failure is mapped: 502, typed by the phase that failed.
      assertThat(error.path("type").asText()).isEqualTo("prefill");
      // The client reads the engine's iid and the problem; its URL is for operators (the journal).
      assertThat(error.path("message").asText())
          .isEqualTo("prefill engine p0 failed the TLS handshake: certificate expired");
      JsonNode row = fleet.journal().awaitRequestRows(1).get(0);
      assertThat(row.path("terminal").asText()).isEqualTo("failed");
      assertThat(row.path("reason").asText()).isEqualTo("engine_unreachable");
      assertThat(row.path("error").asText()).isEqualTo(error.path("message").asText());
      assertThat(row.path("attempt_failures").get(0).path("message").asText())
          .contains("certificate expired").contains("renew the engine's certificate")
          .contains(fleet.fleet.config().engines().get(0).url().toString());
    }
  }

  @Test
  void verifyHostnameFalse_servesAWrongHostCertificate_andSaysSoAtWarn() throws Exception {
    java.util.concurrent.atomic.AtomicReference<FleetConfig> lax = new java.util.concurrent.atomic.AtomicReference<>();
    try (RoutedFleet fleet = RoutedFleet.start(1, 1,
        RoutedFleet.fastEngines().tls(served(ca.wrongHostServer())).build(),
        c -> {
          lax.set(c.withEngine(c.engine().withTls(EngineTlsConfig.defaults().withCaBundle(ca.caFile())
              .withVerifyHostname(false))));
          return lax.get();
        }, null)) {
      HttpResponse<String> response = fleet.client.post("/v1/completions", COMPLETION);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);

      String p0 = fleet.fleet.config().engines().get(0).url().toString();
      assertThat(warnings()).anySatisfy(w -> assertThat(w)
          .startsWith("engine.tls.verify_hostname is false: the certificates of engines p0 (" + p0 + "), d0 (")
          .contains("never for production"));

      int before = warnings().size();
      Preflight.run(lax.get());
      assertThat(warnings().subList(before, warnings().size()))
          .anySatisfy(w -> assertThat(w).startsWith("engine.tls.verify_hostname is false"));
    }
  }
}
