package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import narwhal.config.EngineTlsConfig;
import narwhal.config.FleetConfig;
import narwhal.server.Preflight;
import narwhal.server.PreflightReport;
import narwhal.sim.SimOptions;
import narwhal.sim.SimTls;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The "never leak" rule: with an engine API key (and a TLS client key) configured, everything the router writes or
 * serves — every log event at every level (Netty's DEBUG and TRACE paths included, with their
 * exceptions), the journal file, {@code /metrics}, {@code /narwhal/state}, preflight's lines and
 * the clients' answers — is scanned for the key, after requests that succeed, fail after output,
 * and are refused by engines that expect another key.
 */
class EngineKeyScanTest {

  private static final String KEY = "sk-scan-7d1c9e4b2a";
  private static final String STALE = "sk-scan-stale-51f0";

  @TempDir Path dir;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final Map<Logger, Level> levels = new HashMap<>();
  private final List<Appender<ILoggingEvent>> consoles = new ArrayList<>();

  /** Everything at TRACE into the list, nothing to the console (it would drown the build's output). */
  @BeforeEach
  void captureEverything() {
    root.iteratorForAppenders().forEachRemaining(consoles::add);
    consoles.forEach(root::detachAppender);
    for (Logger l : context.getLoggerList()) {
      levels.put(l, l.getLevel());
      if (l.getLevel() != null) {
        l.setLevel(Level.TRACE);
      }
    }
    root.setLevel(Level.TRACE);
    logs.start();
    root.addAppender(logs);
  }

  @AfterEach
  void restore() {
    root.detachAppender(logs);
    levels.forEach(Logger::setLevel);
    consoles.forEach(root::addAppender);
  }

  private static UnaryOperator<FleetConfig> routerKey(String value) {
    return c -> c.withEngine(c.engine().withEngineApiKey("NARWHAL_ENGINE_KEY", value))
        .withServing(c.serving().withMaxAttempts(1));
  }

  private static String body(String prompt, boolean stream) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":4,\"stream\":" + stream + "}";
  }

  /** Every log event as text: message, arguments, key-value pairs, exceptions with their causes. */
  private String loggedText() {
    StringBuilder sb = new StringBuilder();
    for (ILoggingEvent e : List.copyOf(logs.list)) {
      sb.append(e.getLoggerName()).append(' ').append(e.getFormattedMessage()).append('\n');
      if (e.getKeyValuePairs() != null) {
        e.getKeyValuePairs().forEach(kv -> sb.append(kv.key).append('=').append(kv.value).append('\n'));
      }
      for (var t = e.getThrowableProxy(); t != null; t = t.getCause()) {
        sb.append(t.getClassName()).append(": ").append(t.getMessage()).append('\n');
      }
    }
    return sb.toString();
  }

  @Test
  void theKeyIsNowhere_afterServedFailedAndRefusedRequests() throws Exception {
    SimOptions keyed = RoutedFleet.fastEngines().apiKey(KEY).build();
    List<String> answers = new ArrayList<>();
    String journal;
    String metrics;
    String state;
    List<String> preflight;
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, keyed, routerKey(KEY), null)) {
      HttpResponse<String> served = fleet.client.post("/v1/completions", body("scan", false));
      assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
      answers.add(served.body());
      answers.add(fleet.client.stream("/v1/completions", body("fault [[sim:reset-after=2,phase=decode]]", true)).raw());
      answers.add(fleet.client.post("/v1/completions", body("fault [[sim:status=500,phase=prefill]]", false)).body());
      assertThat(fleet.engine("p0").received()).as("the key went to the engine")
          .anySatisfy(r -> assertThat(r.header("Authorization")).isEqualTo("Bearer " + KEY));

      metrics = fleet.client.get("/metrics").body();
      state = fleet.client.get("/narwhal/state").body();
      preflight = Preflight.run(routerKey(KEY).apply(fleet.fleet.configWithExactProfiles(dir.resolve("p.json"))))
          .lines();
      fleet.journal().awaitRequestRows(3);
      journal = Files.readString(fleet.journal().path());
    }
    assertThat(metrics).contains("narwhal_");
    assertThat(state).contains("\"engines\"");
    assertThat(journal).contains("\"terminal\":\"completed\"").contains("\"terminal\":\"failed\"");
    String logged = loggedText();
    assertThat(logged).as("DEBUG and TRACE were captured").contains("io.netty");

    for (String where : List.of(logged, journal, metrics, state, String.join("\n", preflight),
        String.join("\n", answers))) {
      assertThat(where).doesNotContain(KEY).doesNotContain("Bearer sk-");
    }
  }

  /** Each line of a PEM file's base64 body: any one of them showing up means the file was quoted. */
  private static List<String> pemBodyLines(Path pem) throws java.io.IOException {
    return Files.readAllLines(pem).stream().filter(l -> !l.startsWith("-----") && l.length() >= 16).toList();
  }

  @Test
  void theRoutersTlsClientKey_isNowhereEither() throws Exception {
    TestCertificates ca = TestCertificates.create(dir.resolve("ca"));
    TestCertificates.Issued client = ca.client("router");
    SimOptions tlsEngines = RoutedFleet.fastEngines().apiKey(KEY)
        .tls(new SimTls(ca.server().certFile(), ca.server().keyFile())).build();
    UnaryOperator<FleetConfig> config = c -> routerKey(KEY).apply(c.withEngine(c.engine().withTls(
        EngineTlsConfig.defaults().withCaBundle(ca.caFile()).withClientCertificate(client.certFile(), client.keyFile()))));
    List<String> seen = new ArrayList<>();
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, tlsEngines, config, null)) {
      HttpResponse<String> served = fleet.client.post("/v1/completions", body("tls scan", false));
      assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
      seen.add(served.body());
      seen.add(fleet.client.stream("/v1/completions", body("fault [[sim:reset-after=2,phase=decode]]", true)).raw());
      seen.add(fleet.client.get("/metrics").body());
      seen.add(fleet.client.get("/narwhal/state").body());
      // Without profiles (measuring them would need the test CA in a JDK client): the lines are what is scanned.
      seen.addAll(Preflight.run(config.apply(fleet.fleet.config())).lines());
      fleet.journal().awaitRequestRows(2);
      seen.add(Files.readString(fleet.journal().path()));
    }
    seen.add(loggedText());
    String everything = String.join("\n", seen);

    assertThat(pemBodyLines(client.keyFile())).isNotEmpty()
        .allSatisfy(line -> assertThat(everything).doesNotContain(line));
    assertThat(everything).doesNotContain(KEY).doesNotContain("PRIVATE KEY");
  }

  @Test
  void aStaleKey_refusedByTheEngines_isNowhereEither() throws Exception {
    SimOptions keyed = RoutedFleet.fastEngines().apiKey(KEY).build();
    List<String> answers = new ArrayList<>();
    String journal;
    String state;
    PreflightReport preflight;
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, keyed, routerKey(STALE), null)) {
      HttpResponse<String> refused = fleet.client.post("/v1/completions", body("stale", false));
      assertThat(refused.statusCode()).isEqualTo(502);
      answers.add(refused.body());
      answers.add(fleet.client.stream("/v1/completions", body("stale", true)).raw());
      state = fleet.client.get("/narwhal/state").body();
      preflight = Preflight.run(routerKey(STALE).apply(fleet.fleet.configWithExactProfiles(dir.resolve("p.json"))));
      fleet.journal().awaitRequestRows(2);
      journal = Files.readString(fleet.journal().path());
    }
    assertThat(preflight.passed()).isFalse();
    for (String where : List.of(loggedText(), journal, state, String.join("\n", preflight.lines()),
        String.join("\n", answers))) {
      assertThat(where).doesNotContain(STALE).doesNotContain(KEY).doesNotContain("Bearer sk-");
    }
  }
}
