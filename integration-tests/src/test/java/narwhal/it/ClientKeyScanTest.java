package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import narwhal.config.ApiKeyHash;
import narwhal.config.FleetConfig;
import narwhal.config.TenantConfig;
import narwhal.config.TenantsConfig;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.StreamEvent;
import narwhal.server.logs.LogSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

/**
 * Client keys over both front-ends, at every log level the router can be asked for: with the
 * levels {@code NARWHAL_LOG_LEVEL} sets (LogSetup, as {@code narwhal serve} applies them) and
 * java.util.logging bridged, a tenant's key, good or wrong, sent over HTTP and over gRPC (whole
 * and streamed, once and twice in one request) appears in no log event, journal row, metric,
 * state document or answer. And what a hostile {@code Authorization} gets back: a 400 for two
 * values, a 401 saying what is malformed, each with the request's id.
 */
class ClientKeyScanTest {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final String key = newKey();
  private final String wrong = newKey();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final Map<Logger, Level> levels = new HashMap<>();
  private final List<Appender<ILoggingEvent>> consoles = new ArrayList<>();

  @TempDir Path dir;

  @BeforeEach
  void captureInsteadOfPrinting() {
    root.iteratorForAppenders().forEachRemaining(consoles::add);
    consoles.forEach(root::detachAppender);
    for (Logger l : context.getLoggerList()) {
      levels.put(l, l.getLevel());
    }
    logs.start();
    root.addAppender(logs);
  }

  @AfterEach
  void restore() {
    root.detachAppender(logs);
    for (Logger l : context.getLoggerList()) {
      l.setLevel(levels.get(l));
    }
    consoles.forEach(root::addAppender);
  }

  /** The levels a fresh {@code narwhal serve} with {@code NARWHAL_LOG_LEVEL=level} runs with. */
  private void logAt(String level) {
    for (Logger l : context.getLoggerList()) {
      if (l != root) {
        l.setLevel(null); // this module's test configuration aside: only what LogSetup decides
      }
    }
    LogSetup.apply(Map.of(LogSetup.LEVEL_ENV, level));
  }

  private UnaryOperator<FleetConfig> tenants(List<String> operatorKeys) {
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    TenantsConfig tenants = new TenantsConfig(List.of(
        new TenantConfig("search", List.of(ApiKeyHash.of(key, salt)), List.of(), 0, 0, 1, 1.0)),
        operatorKeys.stream().map(k -> ApiKeyHash.of(k, salt)).toList());
    return c -> c.withTenants(tenants);
  }

  @ParameterizedTest
  @ValueSource(strings = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR"})
  void aClientKey_overHttpAndGrpc_isNowhere_atAnyLevel(String level) throws Exception {
    logAt(level);
    List<String> written = new ArrayList<>();
    Path journal = dir.resolve("journal.jsonl");
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), tenants(List.of()), journal);
        GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      for (String authorization : List.of("Bearer " + key, "Bearer " + wrong, "Bearer\t" + key)) {
        written.add(post(fleet, "{\"prompt\":\"scan\",\"max_tokens\":3}", authorization).body());
        written.add(post(fleet, "{\"prompt\":\"scan\",\"max_tokens\":3,\"stream\":true}", authorization).body());
        written.add(complete(grpc, authorization).toString());
        written.add(stream(grpc, authorization).toString());
      }
      written.add(post(fleet, "{\"prompt\":\"twice\",\"max_tokens\":3}", "Bearer " + key, "Bearer " + key).body());
      written.add(complete(grpc, "Bearer " + key, "Bearer " + wrong).toString());
      assertThat(written).as("the good key was served on both front-ends")
          .anySatisfy(w -> assertThat(w).contains("\"text_completion\""))
          .anySatisfy(w -> assertThat(w).startsWith("OK"));
      written.add(fleet.client.get("/metrics").body());
      written.add(fleet.client.get("/narwhal/state").body());
      fleet.journal().awaitRequestRows(14);
      written.add(Files.readString(journal));
    }
    String logged = loggedText();
    written.add(logged);
    if (level.equals("TRACE") || level.equals("DEBUG")) {
      assertThat(logged).as("each request's line is logged at %s", level)
          .contains("narwhal.core.request.OutcomeRecorder request completed");
    }
    String everything = String.join("\n", written);
    for (String secret : List.of(key, wrong, key.substring(13), wrong.substring(13))) {
      assertThat(everything).doesNotContain(secret);
    }
    assertThat(everything).doesNotContainIgnoringCase("authorization: bearer");
  }

  @Test
  void hostileAuthorization_isRefusedSayingWhatToFix_andEveryRefusalCarriesItsRequestId() throws Exception {
    Path journal = dir.resolve("journal.jsonl");
    String operator = newKey();
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), tenants(List.of(operator)),
        journal); GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort())) {
      RawHttp.Response none = raw(fleet, List.of());
      RawHttp.Response twice = raw(fleet, List.of("Bearer " + key, "Bearer " + key));
      RawHttp.Response tab = raw(fleet, List.of("Bearer\t" + key));
      RawHttp.Response operatorTwice =
          rawGet(fleet, "/narwhal/state", List.of("Bearer " + operator, "Bearer " + operator));
      RawHttp.Response operatorTab = rawGet(fleet, "/metrics", List.of("Bearer\t" + operator));

      assertThat(none.status()).isEqualTo(401);
      assertThat(none.header("WWW-Authenticate")).isEqualTo("Bearer realm=\"narwhal\"");
      assertThat(twice.status()).isEqualTo(400);
      assertThat(twice.header("WWW-Authenticate")).as("not a challenge: nothing was wrong with the key").isNull();
      assertThat(code(twice)).isEqualTo("ambiguous_authorization");
      assertThat(message(twice)).isEqualTo("The request carries 2 Authorization headers (gRPC: authorization metadata "
          + "values); send exactly one, as 'Bearer <key>'.");
      assertThat(tab.status()).isEqualTo(401);
      assertThat(code(tab)).isEqualTo("invalid_api_key");
      assertThat(message(tab)).contains("separate Bearer and the key with a space").contains("RFC 6750");
      assertThat(operatorTwice.status()).as("the operator routes refuse two keys alike").isEqualTo(400);
      assertThat(code(operatorTwice)).isEqualTo("ambiguous_authorization");
      assertThat(operatorTab.status()).isEqualTo(401);
      assertThat(message(operatorTab)).contains("separate Bearer and the key with a space");
      assertThat(rawGet(fleet, "/metrics", List.of("Bearer " + operator)).status()).isEqualTo(200);

      List<JsonNode> rows = fleet.journal().awaitRequestRows(3);
      for (RawHttp.Response refused : List.of(none, twice, tab)) {
        String rid = refused.header("x-request-id");
        assertThat(rid).as("every error answer to a completion route carries its request id").isNotBlank();
        assertThat(rows).anySatisfy(r -> {
          assertThat(r.path("rid").asText()).isEqualTo(rid);
          assertThat(r.path("terminal").asText()).isEqualTo("invalid");
          assertThat(r.path("reason").asText()).isEqualTo("unauthenticated");
          assertThat(r.path("status").asInt()).isEqualTo(refused.status());
        });
      }

      GrpcRouterClient.Outcome<Completion> grpcTwice = complete(grpc, "Bearer " + key, "Bearer " + key);
      GrpcRouterClient.Outcome<Completion> grpcWrong = complete(grpc, "Bearer " + wrong);
      assertThat(grpcTwice.status().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(grpcTwice.trailer(GrpcRouterClient.ERROR_CODE)).isEqualTo("ambiguous_authorization");
      assertThat(grpcWrong.status().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(grpcWrong.trailer(GrpcRouterClient.REQUEST_ID)).isNotBlank();
      assertThat(fleet.journal().awaitRequestRows(5)).anySatisfy(r -> assertThat(r.path("rid").asText())
          .isEqualTo(grpcWrong.trailer(GrpcRouterClient.REQUEST_ID)));
      assertThat(rawGet(fleet, "/metrics", List.of("Bearer " + operator)).body())
          .containsPattern("narwhal_auth_failures_total\\{reason=\"ambiguous\"\\} 3(\\.0)?\n")
          .containsPattern("narwhal_auth_failures_total\\{reason=\"malformed\"\\} 2(\\.0)?\n");
    }
  }

  private static String code(RawHttp.Response r) {
    return RouterClient.json(r.body()).path("error").path("code").asText();
  }

  private static String message(RawHttp.Response r) {
    return RouterClient.json(r.body()).path("error").path("message").asText();
  }

  private static RawHttp.Response raw(RoutedFleet fleet, List<String> authorization) {
    String body = "{\"prompt\":\"hostile\",\"max_tokens\":2}";
    StringBuilder head = new StringBuilder("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n");
    authorization.forEach(a -> head.append("Authorization: ").append(a).append("\r\n"));
    try (RawHttp http = new RawHttp(fleet.router.port())) {
      http.write(head + "\r\n" + body);
      return http.readResponse();
    }
  }

  private static RawHttp.Response rawGet(RoutedFleet fleet, String path, List<String> authorization) {
    StringBuilder head = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    authorization.forEach(a -> head.append("Authorization: ").append(a).append("\r\n"));
    try (RawHttp http = new RawHttp(fleet.router.port())) {
      http.write(head + "\r\n");
      return http.readResponse();
    }
  }

  private static java.net.http.HttpResponse<String> post(RoutedFleet fleet, String body, String... authorization) {
    java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + fleet.router.port() + "/v1/completions"))
        .timeout(java.time.Duration.ofSeconds(20))
        .header("Content-Type", "application/json")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body));
    for (String a : authorization) {
      request.header("Authorization", a);
    }
    try {
      return java.net.http.HttpClient.newHttpClient().send(request.build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static GrpcRouterClient.Outcome<Completion> complete(GrpcRouterClient grpc, String... authorization) {
    try {
      Completion answer = stub(grpc, authorization).complete(GrpcRouterClient.completion("grpc scan", 3));
      return new GrpcRouterClient.Outcome<>(List.of(answer), Status.OK, null, null);
    } catch (StatusRuntimeException e) {
      return new GrpcRouterClient.Outcome<>(List.of(), e.getStatus(), null, e.getTrailers());
    }
  }

  private static String stream(GrpcRouterClient grpc, String... authorization) {
    StringBuilder seen = new StringBuilder();
    try {
      Iterator<StreamEvent> events = stub(grpc, authorization)
          .streamCompletion(GrpcRouterClient.completion("grpc stream scan", 3));
      events.forEachRemaining(e -> seen.append(e).append('\n'));
      return "OK " + seen;
    } catch (StatusRuntimeException e) {
      return e.getStatus() + " " + e.getTrailers() + " " + seen;
    }
  }

  private static RouterGrpc.RouterBlockingStub stub(GrpcRouterClient grpc, String... authorization) {
    Metadata metadata = new Metadata();
    for (String a : authorization) {
      metadata.put(AUTHORIZATION, a);
    }
    return RouterGrpc.newBlockingStub(grpc.channel).withDeadlineAfter(20, TimeUnit.SECONDS)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(metadata));
  }

  /** Every captured event as text: logger, message, arguments, pairs, exceptions and their causes. */
  private String loggedText() {
    StringBuilder sb = new StringBuilder();
    for (ILoggingEvent e : List.copyOf(logs.list)) {
      sb.append(e.getLoggerName()).append(' ').append(e.getFormattedMessage()).append('\n');
      if (e.getArgumentArray() != null) {
        for (Object arg : e.getArgumentArray()) {
          sb.append(arg).append('\n');
        }
      }
      if (e.getKeyValuePairs() != null) {
        e.getKeyValuePairs().forEach(kv -> sb.append(kv.key).append('=').append(kv.value).append('\n'));
      }
      for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
        sb.append(t.getClassName()).append(": ").append(t.getMessage()).append('\n');
      }
    }
    return sb.toString();
  }

  /** A key shaped as {@code narwhal key} makes them: {@code nwk_<8-character id>_<43-character secret>}. */
  private static String newKey() {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    StringBuilder id = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      id.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    return "nwk_" + id + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
  }
}
