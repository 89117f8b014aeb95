package narwhal.it;

import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import narwhal.config.AdmissionMode;
import narwhal.config.EngineRole;
import narwhal.config.FleetConfig;
import narwhal.config.ReactiveConfig;
import narwhal.config.SloConfig;
import narwhal.config.ThresholdsConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.sim.SimOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The role controller over real sockets: a 1P2D simulated fleet under a prompt-heavy load moves a
 * decode engine to prefill, and when the load turns output-heavy moves it back; every request
 * sent across both moves completes exactly once.
 *
 * <p>The profiles are the simulator's own timing, set in the router's profile book: prefill = 5 ms
 * + 0.2 ms per prompt token, decode interval = 2 ms × (1 + 0.25 × active streams). Against a TTFT
 * target of 0.5 s, eight clients sending 1000-token prompts keep ~1.6 s of prefill resident on
 * one prefill engine (load ~3); against a TPOT target of 8 ms, 24 clients asking for 100 tokens
 * each keep one decode engine at ~14 ms a token (load ~2).
 */
class AdaptiveRolesTest {

  private static final Duration MOVE_LIMIT = Duration.ofSeconds(30);

  private static SimOptions simulatedGpu() {
    return RoutedFleet.fastEngines().prefillBaseMillis(5).prefillMillisPerToken(0.2).interTokenMillis(2)
        .loadFactor(0.25).kvTransferMillisPerToken(0.005).build();
  }

  private static FleetConfig adaptive(FleetConfig c) {
    ThresholdsConfig thresholds = new ThresholdsConfig(1.0, 0.5, 1.0, 3, 0, 0, 0);
    ReactiveConfig reactive = new ReactiveConfig(2, 2, 0.8, 5, 0.5, 0.05, 0.2, 0.5, 1.0, 3, 0.25, 0.5, 2.0, 0.2, 8);
    return c.withSlo(SloConfig.of(0.5, 0.008))
        // Admission is not what this test is about: every request must be served.
        .withServing(c.serving().withAdmission(AdmissionMode.OPEN))
        .withController(c.controller().toBuilder().monitorIntervalS(0.1).thresholds(thresholds)
            .reactive(reactive).build());
  }

  private static EngineProfile simulatorProfile(String iid) {
    return new EngineProfile(iid, null, new PrefillModel(0.005, 0.0002, 0, 1, 32_768),
        new DecodeModel(0.002, 0, 0.0005, 1_000_000, 64), 0.01, 0.02);
  }

  @Test
  void promptHeavyLoad_movesADecodeEngineToPrefill_outputHeavyLoadMovesItBack_noRequestLostOrDuplicated(
      @TempDir Path dir) throws Exception {
    Path journal = dir.resolve("journal.jsonl");
    try (RoutedFleet fleet = RoutedFleet.start(1, 2, simulatedGpu(), AdaptiveRolesTest::adaptive, journal)) {
      List<EngineState> engines = List.copyOf(fleet.router.router().fleet().engines());
      fleet.router.router().profiles().replaceAll(engines.stream().map(e -> simulatorProfile(e.iid())).toList());
      ConcurrentLinkedQueue<HttpResponse<String>> answers = new ConcurrentLinkedQueue<>();

      String longPrompt = tokenIds(1000);
      try (ClosedLoop promptHeavy = new ClosedLoop(fleet.client, 8, body(longPrompt, 2), answers)) {
        until("a decode engine moves to prefill under the prompt-heavy load", MOVE_LIMIT,
            () -> engines.stream().filter(e -> e.role() == EngineRole.PREFILL).count() == 2);
      }
      EngineState moved = engines.stream()
          .filter(e -> e.spec().role() == EngineRole.DECODE && e.role() == EngineRole.PREFILL)
          .findFirst().orElseThrow();

      try (ClosedLoop outputHeavy = new ClosedLoop(fleet.client, 24, body(tokenIds(10), 100), answers)) {
        until(moved.iid() + " returns to decode under the output-heavy load", MOVE_LIMIT,
            () -> moved.role() == EngineRole.DECODE);
      }

      assertThat(answers).isNotEmpty().allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(200));
      List<JsonNode> rows = fleet.journal().awaitRequestRows(answers.size());
      assertThat(rows).as("one journal row per request sent").hasSize(answers.size());
      assertThat(rows).allSatisfy(r -> {
        assertThat(r.path("terminal").asText()).isEqualTo("completed");
        assertThat(r.path("attempts").asInt()).isEqualTo(1);
      });
      Set<String> rids = rows.stream().map(r -> r.path("rid").asText()).collect(Collectors.toSet());
      Set<String> answered = new HashSet<>();
      answers.forEach(a -> answered.add(RouterClient.json(a.body()).path("id").asText()));
      assertThat(rids).as("no request duplicated").hasSize(rows.size());
      assertThat(answered).as("each answer is a distinct request").hasSize(answers.size());
      assertThat(rows).as("prefills ran on the moved engine")
          .anyMatch(r -> r.path("prefill_iid").asText().equals(moved.iid()));

      List<JsonNode> moves = fleet.journal().rows().stream()
          .filter(r -> r.path("event").asText().equals("controller_decision"))
          .filter(r -> r.path("outcome").asText().equals("moved") && r.path("iid").asText().equals(moved.iid()))
          .toList();
      assertThat(moves).extracting(m -> m.path("from").asText() + "->" + m.path("to").asText())
          .containsSubsequence("decode->prefill", "prefill->decode");
      assertThat(moves.get(0).path("loads").path("prefill").asDouble()).isGreaterThanOrEqualTo(1.0);

      JsonNode state = RouterClient.json(fleet.client.get("/narwhal/state").body());
      assertThat(state.path("controller").path("status").asText()).isEqualTo("active");
      assertThat(state.path("controller").path("flips")).anySatisfy(f ->
          assertThat(f.path("iid").asText() + ":" + f.path("to").asText()).isEqualTo(moved.iid() + ":prefill"));
      String metrics = fleet.client.get("/metrics").body();
      assertThat(metrics).contains("narwhal_flips_total{from=\"decode\",to=\"prefill\"}")
          .contains("narwhal_pool_load{role=\"decode\"}");
      fleet.assertReservationsReturnToZero();
    }
  }

  @Test
  void theOnlyPrefillEngineGone_theDecodeEngineTakesBothRoles_untilItIsBack() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withController(c.controller().withMonitorIntervalS(0.05))
            .withRecovery(c.recovery().withLivenessEvery(1).withLivenessMisses(1).withReadmitEvery(2)), null)) {
      EngineState p0 = fleet.router.router().fleet().get("p0");
      EngineState d0 = fleet.router.router().fleet().get("d0");
      narwhal.sim.SimEngine engine = fleet.engine("p0");
      int port = engine.port();
      engine.close();
      until("liveness ejects p0 and d0 stands in for prefill", () -> !p0.inPlacement() && d0.role() == EngineRole.BOTH);

      HttpResponse<String> served = fleet.client.post("/v1/completions", body(tokenIds(5), 3));
      assertThat(served.statusCode()).as(served.body()).isEqualTo(200);
      assertThat(fleet.client.get("/ready").statusCode()).isEqualTo(200);

      try (var restarted = narwhal.sim.SimEngine.start(engine.options().toBuilder().port(port).build())) {
        until("p0 is readmitted and d0 returns to decode", () -> p0.inPlacement() && d0.role() == EngineRole.DECODE);
        JsonNode flips = RouterClient.json(fleet.client.get("/narwhal/state").body()).path("controller").path("flips");
        assertThat(flips).extracting(f -> f.path("rule").asText())
            .containsExactly("empty_role_fallback", "fallback_restored");
      }
    }
  }

  private static String tokenIds(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(Integer::toString).collect(Collectors.joining(",", "[", "]"));
  }

  private static String body(String promptTokenIds, int maxTokens) {
    return "{\"model\":\"" + RoutedFleet.MODEL + "\",\"prompt\":" + promptTokenIds + ",\"max_tokens\":" + maxTokens
        + ",\"stream\":false}";
  }

  /** {@code clients} clients each sending {@code body} again as soon as the last answer arrives. */
  private static final class ClosedLoop implements AutoCloseable {

    private final ExecutorService threads;
    private final AtomicBoolean running = new AtomicBoolean(true);

    ClosedLoop(RouterClient client, int clients, String body, ConcurrentLinkedQueue<HttpResponse<String>> answers) {
      threads = Executors.newFixedThreadPool(clients);
      for (int i = 0; i < clients; i++) {
        threads.execute(() -> {
          while (running.get()) {
            answers.add(client.post("/v1/completions", body));
          }
        });
      }
    }

    /** Stops sending and waits for every request in flight to be answered. */
    @Override
    public void close() throws InterruptedException {
      running.set(false);
      threads.shutdown();
      if (!threads.awaitTermination(60, TimeUnit.SECONDS)) {
        threads.shutdownNow();
        throw new AssertionError("clients still waiting for answers after 60 s");
      }
    }
  }
}
