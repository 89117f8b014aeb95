package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import narwhal.config.ApiKeyHash;
import narwhal.config.FleetConfig;
import narwhal.config.ServingTlsConfig;
import narwhal.config.TenantConfig;
import narwhal.config.TenantsConfig;
import narwhal.sim.SimEngine;
import narwhal.testing.Poll;
import narwhal.testing.tls.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Client authentication and per-tenant limits over real sockets: raw HTTP, the official OpenAI SDK
 * (src/test/openai-sdk/auth.js) and grpc-js over TLS with a bearer token (src/test/node/bearer.js);
 * tenants at their limits beside tenants that are not; and a scan of everything the router wrote
 * (journal, log lines at debug, metrics, /narwhal/state) for any key or key hash.
 */
class TenantsTest {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Key search = Key.create();
  private final Key searchNext = Key.create();
  private final Key locked = Key.create();
  private final Key capped = Key.create();
  private final Key metered = Key.create();
  private final Key operator = Key.create();
  private final List<Key> allKeys = List.of(search, searchNext, locked, capped, metered, operator);
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
  private final Logger root = logging.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final Logger requests = logging.getLogger("narwhal.core.request");
  private Level rootLevel;
  private Level requestsLevel;

  @TempDir Path dir;

  /** A key as narwhal key makes one, and its stored hash line. */
  private record Key(String key, ApiKeyHash hash) {
    static Key create() {
      String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
      StringBuilder id = new StringBuilder();
      for (int i = 0; i < 8; i++) {
        id.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
      }
      byte[] secret = new byte[32];
      RANDOM.nextBytes(secret);
      String key = "nwk_" + id + "_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
      byte[] salt = new byte[16];
      RANDOM.nextBytes(salt);
      return new Key(key, ApiKeyHash.of(key, salt));
    }

    /** What must never be written: the key, its secret part, and the stored line's salt and digest. */
    List<String> secrets() {
      String[] parts = hash.format().split("\\$");
      // The secret follows "nwk_<8-character id>_"; it may itself hold '_' (base64url).
      return List.of(key, key.substring("nwk_".length() + 9), parts[2], parts[3]);
    }

    String bearer() {
      return "Bearer " + key;
    }
  }

  @BeforeEach
  void captureEveryLogLine() {
    // The scan covers the debug lines too (each request's outcome line), not just what tests print.
    rootLevel = root.getLevel();
    requestsLevel = requests.getLevel();
    root.setLevel(Level.DEBUG);
    requests.setLevel(Level.DEBUG);
    logs.start();
    root.addAppender(logs);
  }

  @AfterEach
  void stopCapturing() {
    root.detachAppender(logs);
    root.setLevel(rootLevel);
    requests.setLevel(requestsLevel);
  }

  private UnaryOperator<FleetConfig> withTenants(UnaryOperator<FleetConfig> more) {
    TenantsConfig tenants = new TenantsConfig(List.of(
        new TenantConfig("search", List.of(search.hash(), searchNext.hash()), List.of(), 0, 0, 1, 1.0),
        new TenantConfig("locked", List.of(locked.hash()), List.of("another-model"), 0, 0, 1, 1.0),
        new TenantConfig("capped", List.of(capped.hash()), List.of(), 1, 0, 1, 1.0),
        new TenantConfig("metered", List.of(metered.hash()), List.of(), 0, 0.001, 1, 1.0)),
        List.of(operator.hash()));
    return c -> more.apply(c.withTenants(tenants));
  }

  private HttpResponse<String> post(RoutedFleet fleet, String path, String body, String authorization) {
    return await(postAsync(fleet, path, body, authorization));
  }

  private CompletableFuture<HttpResponse<String>> postAsync(
      RoutedFleet fleet, String path, String body, String authorization) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.router.port() + path))
        .timeout(Duration.ofSeconds(20))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(RoutedFleet fleet, String path, String authorization) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.router.port() + path))
        .timeout(Duration.ofSeconds(20)).GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return await(http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString()));
  }

  private static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String completion(String prompt, int maxTokens) {
    return "{\"model\":\"" + RoutedFleet.MODEL + "\",\"prompt\":\"" + prompt + "\",\"max_tokens\":" + maxTokens + "}";
  }

  @Test
  void httpAndTheOpenAiSdk_seeOnlyAuthenticatedTenants_andNothingWrittenHoldsAKey() throws Exception {
    NodeScript sdk = NodeScript.project("openai-sdk", "openai");
    List<String> written = new ArrayList<>();
    Path journal = dir.resolve("journal.jsonl");
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), withTenants(c -> c), journal)) {
      HttpResponse<String> none = post(fleet, "/v1/completions", completion("no key", 4), null);
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"narwhal\"");
      assertThat(RouterClient.json(none.body()).path("error").path("code").asText()).isEqualTo("missing_api_key");

      HttpResponse<String> wrong = post(fleet, "/v1/completions", completion("wrong key", 4),
          "Bearer " + Key.create().key());
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(RouterClient.json(wrong.body()).path("error").path("code").asText()).isEqualTo("invalid_api_key");
      assertThat(post(fleet, "/v1/completions", completion("operator key", 4), operator.bearer()).statusCode())
          .as("an operator key is not a tenant's").isEqualTo(401);

      HttpResponse<String> forbidden = post(fleet, "/v1/completions", completion("locked", 4), locked.bearer());
      assertThat(forbidden.statusCode()).isEqualTo(403);
      assertThat(RouterClient.json(forbidden.body()).path("error").path("code").asText()).isEqualTo("model_not_allowed");
      // A streaming request is refused the same way: a JSON 403, never an SSE stream that starts.
      String streaming = completion("locked stream", 4).replace("}", ",\"stream\":true}");
      HttpResponse<String> forbiddenStream = post(fleet, "/v1/completions", streaming, locked.bearer());
      assertThat(forbiddenStream.statusCode()).isEqualTo(403);
      assertThat(forbiddenStream.headers().firstValue("Content-Type")).hasValueSatisfying(
          t -> assertThat(t).startsWith("application/json"));
      assertThat(RouterClient.json(forbiddenStream.body()).path("error").path("code").asText())
          .isEqualTo("model_not_allowed");

      HttpResponse<String> good = post(fleet, "/v1/completions", completion("good key", 4), search.bearer());
      assertThat(good.statusCode()).as(good.body()).isEqualTo(200);
      assertThat(post(fleet, "/v1/completions", completion("rotated key", 4), searchNext.bearer()).statusCode())
          .as("a tenant's second key works beside its first (rotation)").isEqualTo(200);

      // Health and readiness stay open; the operator routes need the operator key.
      assertThat(get(fleet, "/health", null).statusCode()).isEqualTo(200);
      assertThat(get(fleet, "/ready", null).statusCode()).isEqualTo(200);
      assertThat(get(fleet, "/metrics", null).statusCode()).isEqualTo(401);
      assertThat(get(fleet, "/metrics", search.bearer()).statusCode()).isEqualTo(401);
      assertThat(get(fleet, "/narwhal/state", null).statusCode()).isEqualTo(401);

      ObjectNode config = JsonNodeFactory.instance.objectNode()
          .put("base_url", "http://127.0.0.1:" + fleet.router.port())
          .put("model", RoutedFleet.MODEL)
          .put("good_key", search.key())
          .put("forbidden_key", locked.key());
      NodeScript.Result run = sdk.run(Map.of("NARWHAL_SDK_CONFIG", config.toString()), 40, "auth.js");
      assertThat(run.exitCode()).as("node auth.js: %s", run.output()).isZero();
      JsonNode seen = RouterClient.json(run.jsonLine());
      assertThat(seen.path("none").path("error").asText()).as(seen.toString()).isEqualTo("AuthenticationError");
      assertThat(seen.path("wrong").path("error").asText()).isEqualTo("AuthenticationError");
      assertThat(seen.path("wrong").path("code").asText()).isEqualTo("invalid_api_key");
      assertThat(seen.path("forbidden").path("error").asText()).isEqualTo("PermissionDeniedError");
      assertThat(seen.path("good").path("text").asText()).isEqualTo(SimEngine.expectedText(0, "sdk auth", 4));

      List<JsonNode> rows = fleet.journal().awaitRequestRows(11);
      assertThat(rows).filteredOn(r -> r.path("status").asInt() == 401)
          .hasSize(5)
          .allSatisfy(r -> {
            assertThat(r.path("terminal").asText()).isEqualTo("invalid");
            assertThat(r.path("reason").asText()).isEqualTo("unauthenticated");
            assertThat(r.path("tenant").isNull()).isTrue();
          });
      assertThat(rows).filteredOn(r -> r.path("status").asInt() == 403)
          .hasSize(3)
          .allSatisfy(r -> {
            assertThat(r.path("reason").asText()).isEqualTo("forbidden");
            assertThat(r.path("tenant").asText()).isEqualTo("locked");
          });
      assertThat(rows).filteredOn(r -> r.path("terminal").asText().equals("completed"))
          .hasSize(3)
          .allSatisfy(r -> assertThat(r.path("tenant").asText()).isEqualTo("search"));

      HttpResponse<String> metrics = get(fleet, "/metrics", operator.bearer());
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body())
          .containsPattern("narwhal_tenant_requests_total\\{tenant=\"search\",terminal=\"completed\"\\} 3(\\.0)?\n")
          .containsPattern("narwhal_auth_failures_total\\{reason=\"missing\"\\} 2(\\.0)?\n")
          .containsPattern("narwhal_auth_failures_total\\{reason=\"unknown\"\\} 3(\\.0)?\n")
          .containsPattern("narwhal_auth_failures_total\\{reason=\"model_not_allowed\"\\} 3(\\.0)?\n")
          .containsPattern("narwhal_auth_failures_total\\{reason=\"operator\"\\} 3(\\.0)?\n");
      HttpResponse<String> state = get(fleet, "/narwhal/state", operator.bearer());
      assertThat(state.statusCode()).isEqualTo(200);
      written.add(metrics.body());
      written.add(state.body());
      written.add(none.body() + wrong.body() + forbidden.body());
    }
    written.add(Files.readString(journal));
    for (ILoggingEvent event : logs.list) {
      written.add(event.getFormattedMessage() + " " + event.getKeyValuePairs() + " " + event.getMDCPropertyMap()
          + (event.getThrowableProxy() == null ? "" : " " + event.getThrowableProxy().getMessage()));
    }
    assertThat(logs.list).as("the requests' debug lines were captured").hasSizeGreaterThan(10);
    String everything = String.join("\n", written);
    for (Key key : allKeys) {
      for (String secret : key.secrets()) {
        assertThat(everything).as("no key or key hash material is written").doesNotContain(secret);
      }
    }
  }

  @Test
  void aTenantAtItsLimits_isRefusedWithItsOwnError_whileAnotherIsServed() throws Exception {
    // Slow decoding keeps the capped tenant's first request in flight while the others arrive.
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().interTokenMillis(40).build(),
        withTenants(c -> c), null)) {
      CompletableFuture<HttpResponse<String>> first =
          postAsync(fleet, "/v1/completions", completion("capped first", 25), capped.bearer());
      Poll.until("the capped tenant's first request in flight",
          () -> fleet.router.router().admission().inFlight() > 0);
      assertThat(first).as("still in flight").isNotDone();

      HttpResponse<String> second = post(fleet, "/v1/completions", completion("capped second", 4), capped.bearer());
      HttpResponse<String> other = post(fleet, "/v1/completions", completion("other tenant", 4), search.bearer());

      assertThat(second.statusCode()).isEqualTo(429);
      assertThat(second.headers().firstValue("Retry-After")).hasValue("1");
      JsonNode error = RouterClient.json(second.body()).path("error");
      assertThat(error.path("type").asText()).as("not the fleet-wide limit's type").isEqualTo("tenant_limit_error");
      assertThat(error.path("code").asText()).isEqualTo("tenant_inflight_limit");
      assertThat(other.statusCode()).as("another tenant is served meanwhile: %s", other.body()).isEqualTo(200);
      assertThat(await(first).statusCode()).isEqualTo(200);

      HttpResponse<String> metered1 = post(fleet, "/v1/completions", completion("metered", 4), metered.bearer());
      HttpResponse<String> metered2 = post(fleet, "/v1/completions", completion("metered", 4), metered.bearer());
      assertThat(metered1.statusCode()).isEqualTo(200);
      assertThat(metered2.statusCode()).isEqualTo(429);
      assertThat(RouterClient.json(metered2.body()).path("error").path("code").asText()).isEqualTo("tenant_rate_limit");
      // One request per 1000 s: the wait for the next token, not a fixed hint.
      assertThat(Integer.parseInt(metered2.headers().firstValue("Retry-After").orElseThrow())).isBetween(990, 1000);
      assertThat(post(fleet, "/v1/completions", completion("other again", 4), search.bearer()).statusCode())
          .isEqualTo(200);

      List<JsonNode> rows = fleet.journal().awaitRequestRows(6);
      JsonNode refused = rows.stream().filter(r -> r.path("reason").asText().equals("tenant_inflight")).findFirst()
          .orElseThrow(() -> new AssertionError("no tenant_inflight row: " + rows));
      assertThat(refused.path("terminal").asText()).isEqualTo("refused");
      assertThat(refused.path("tenant").asText()).isEqualTo("capped");
      assertThat(rows).anySatisfy(r -> {
        assertThat(r.path("reason").asText()).isEqualTo("tenant_rate");
        assertThat(r.path("tenant").asText()).isEqualTo("metered");
      });
      assertThat(rows).filteredOn(r -> "search".equals(r.path("tenant").asText()))
          .hasSize(2)
          .allSatisfy(r -> {
            assertThat(r.path("terminal").asText()).isEqualTo("completed");
            assertThat(r.path("queue_wait_s").isNull()).as("never waited behind the capped tenant").isTrue();
          });
      fleet.assertReservationsReturnToZero();
      assertThat(fleet.router.router().admission().inFlight()).isZero();
    }
  }

  @Test
  void grpcJs_overTls_withABearerToken_andUnauthenticatedWithout() throws Exception {
    NodeScript node = NodeScript.project("node", "@grpc/grpc-js", "@grpc/proto-loader");
    TestCertificates ca = TestCertificates.create(dir);
    TestCertificates.Issued server = ca.server();
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(), withTenants(
        c -> c.withServing(c.serving().withTls(ServingTlsConfig.of(server.certFile(), server.keyFile())))), null)) {
      NodeScript.Result run = node.run(Map.of(), 45, "bearer.js", "--port", Integer.toString(fleet.router.grpcPort()),
          "--ca", ca.caFile().toString(), "--key", search.key());

      assertThat(run.exitCode()).as("node bearer.js: %s", run.output()).isZero();
      JsonNode seen = RouterClient.json(run.jsonLine());
      assertThat(seen.path("none").path("code").asInt()).as(seen.toString()).isEqualTo(16); // UNAUTHENTICATED
      assertThat(seen.path("none").path("www_authenticate").asText()).isEqualTo("Bearer realm=\"narwhal\"");
      assertThat(seen.path("wrong").path("code").asInt()).isEqualTo(16);
      assertThat(seen.path("good").path("code").asInt()).isZero();
      assertThat(seen.path("good").path("text").asText()).isEqualTo(SimEngine.expectedText(0, "grpc bearer", 4));
      List<JsonNode> rows = fleet.journal().awaitRequestRows(3);
      assertThat(rows).anySatisfy(r -> {
        assertThat(r.path("front_end").asText()).isEqualTo("grpc");
        assertThat(r.path("tenant").asText()).isEqualTo("search");
        assertThat(r.path("terminal").asText()).isEqualTo("completed");
      });
      assertThat(rows).filteredOn(r -> "unauthenticated".equals(r.path("reason").asText())).hasSize(2);
    }
  }
}
