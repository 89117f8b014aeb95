package narwhal.it;

import static narwhal.testing.Poll.until;
import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import narwhal.config.FleetConfig;
import narwhal.server.DemoFleet;
import narwhal.server.Preflight;
import narwhal.server.PreflightReport;
import narwhal.sim.ReceivedRequest;
import narwhal.sim.SimOptions;
import org.junit.jupiter.api.Test;

/**
 * {@code engine.engine_api_key_env} end to end: simulated engines started with an API key (as
 * vLLM's {@code --api-key}), the router sending its key on every engine request, and what the
 * client, the breaker, the journal and preflight show when the key is wrong.
 */
class EngineApiKeyTest {

  private static final String KEY = "sk-engines-4f2a";
  private static final String WRONG = "sk-stale-0000";
  private static final String CREDENTIALS = "refused the router's credentials (HTTP 401): check engine.engine_api_key_env";

  private static SimOptions keyedEngines() {
    return RoutedFleet.fastEngines().apiKey(KEY).build();
  }

  private static UnaryOperator<FleetConfig> routerKey(String value) {
    return c -> c.withEngine(c.engine().withEngineApiKey("NARWHAL_ENGINE_KEY", value));
  }

  private static String body(String prompt, boolean stream) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":4,\"stream\":" + stream + "}";
  }

  @Test
  void rightKey_completionsStream_andEveryEngineRequestCarriedIt() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, keyedEngines(), routerKey(KEY), null)) {
      RouterClient.SseResponse streamed = fleet.client.stream("/v1/completions", body("hello", true));
      HttpResponse<String> whole = fleet.client.post("/v1/completions", body("again", false));

      assertThat(streamed.status()).isEqualTo(200);
      assertThat(streamed.endsWithDone()).isTrue();
      assertThat(streamed.text()).isNotEmpty();
      assertThat(whole.statusCode()).isEqualTo(200);
      List<ReceivedRequest> seen = new java.util.ArrayList<>(fleet.engine("p0").received());
      seen.addAll(fleet.engine("d0").received());
      assertThat(seen).as("both legs of both requests").hasSizeGreaterThanOrEqualTo(4)
          .allSatisfy(r -> assertThat(r.header("Authorization")).isEqualTo("Bearer " + KEY));
      fleet.journal().awaitRequestRows(2);
      assertThat(Files.readString(fleet.journal().path())).as("the key is never journaled").doesNotContain(KEY);
    }
  }

  @Test
  void wrongKey_clientGets502NamingTheKey_andTheBreakerCountsItAgainstTheEngine() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, keyedEngines(), routerKey(WRONG), null)) {
      HttpResponse<String> response = fleet.client.post("/v1/completions", body("hello", false));

      assertThat(response.statusCode()).as(response.body()).isEqualTo(502);
      JsonNode error = json(response.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("prefill");
      assertThat(error.path("code").asText()).isEqualTo("engine_credentials");
      assertThat(error.path("message").asText()).startsWith("prefill engine p0 " + CREDENTIALS)
          .doesNotContain(WRONG);
      assertThat(fleet.engine("p0").received()).singleElement()
          .satisfies(r -> assertThat(r.header("Authorization")).isEqualTo("Bearer " + WRONG));
      assertThat(fleet.engine("d0").received()).as("no decode leg after a refused prefill").isEmpty();

      until("p0's breaker counts the refusal", () -> streak(fleet, "p0") >= 1);
      JsonNode row = fleet.journal().awaitRequestRows(1).get(0);
      assertThat(row.path("terminal").asText()).isEqualTo("failed");
      assertThat(row.path("reason").asText()).isEqualTo("engine_credentials");
      assertThat(Files.readString(fleet.journal().path())).doesNotContain(WRONG);
    }
  }

  @Test
  void noKeyAtAll_againstKeyedEngines_isTheSame502() {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, keyedEngines(), c -> c, null)) {
      RouterClient.SseResponse response = fleet.client.stream("/v1/completions", body("hello", true));

      assertThat(response.status()).isEqualTo(502);
      assertThat(response.raw()).contains("prefill engine p0 " + CREDENTIALS);
      assertThat(fleet.engine("p0").received()).singleElement()
          .satisfies(r -> assertThat(r.header("Authorization")).isNull());
    }
  }

  @Test
  void preflight_passesWithTheKey_andFailsWithTheCredentialsMessageWithout() throws java.io.IOException {
    EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try (DemoFleet fleet = DemoFleet.start(1, 1, keyedEngines(), simGroup)) {
      FleetConfig profiled = fleet.configWithExactProfiles(java.nio.file.Files.createTempFile("profiles-", ".json"));
      PreflightReport right = Preflight.run(routerKey(KEY).apply(profiled));
      PreflightReport wrong = Preflight.run(routerKey(WRONG).apply(profiled));

      assertThat(right.passed()).as(String.join("\n", right.lines())).isTrue();
      assertThat(wrong.passed()).isFalse();
      assertThat(wrong.lines())
          .anySatisfy(l -> assertThat(l).startsWith("FAIL p0  engine p0's model list (GET /v1/models) " + CREDENTIALS))
          .anySatisfy(l -> assertThat(l).startsWith("FAIL d0  engine d0's model list (GET /v1/models) " + CREDENTIALS))
          .noneSatisfy(l -> assertThat(l).contains(WRONG));
    } finally {
      simGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  /** The engine's {@code inference_status} streak as GET /narwhal/state reports it. */
  private static int streak(RoutedFleet fleet, String iid) {
    for (JsonNode e : json(fleet.client.get("/narwhal/state").body()).path("engines")) {
      if (e.path("iid").asText().equals(iid)) {
        return e.path("breaker").path("inference_status").asInt();
      }
    }
    throw new AssertionError("no engine " + iid + " in /narwhal/state");
  }
}
