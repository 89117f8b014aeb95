package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import narwhal.api.FailureClass;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.EngineProber;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.core.health.HealthMonitor;
import narwhal.core.request.RouterFixture.Client;
import narwhal.spi.TransportFailure;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialect;
import narwhal.testing.ManualScheduler;
import narwhal.time.Scheduler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Poisoned requests (a failure that follows one request from engine to engine) and exclusions as
 * preferences, on the manual clock, with the real breaker ({@link HealthMonitor}, eject_after 3)
 * counting what the requests report.
 */
class RouterPoisonAndFallbackTest {

  /** Longer than any backoff (cap 1 s): the retry, if one is due, has been dispatched. */
  private static final long PAST_BACKOFF_MS = 1_500;

  /** The breaker's own loop, run by {@link #settle}; the events it journals. */
  private final ManualScheduler breakerLoop = new ManualScheduler();
  private final List<String> events = new ArrayList<>();

  private RouterFixture withBreaker(FleetConfig config) {
    return new RouterFixture(config, fleet -> {
      // Probes never answer: these tests are about what requests report, not readmission.
      EngineProber silent = new EngineProber() {
        @Override
        public CompletableFuture<CheckResult> health(EngineSpec engine, Scheduler loop) {
          return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<CheckResult> kvTransfer(EngineSpec producer, EngineSpec consumer, Scheduler loop) {
          return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<CheckResult> lifecycle(EngineSpec engine, List<EngineSpec> livePeers, Scheduler loop) {
          return new CompletableFuture<>();
        }
      };
      return new HealthMonitor(config, fleet, silent, breakerLoop, (event, fields) -> events.add(event));
    });
  }

  /** One prefill engine (p1) and two decode engines (d1, d2). */
  private static FleetConfig oneByTwo(int maxAttempts) {
    FleetConfig c = FleetConfig.of("m", List.of(
        TestDialect.engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        TestDialect.engine("d1", "http://10.0.0.3:8200", EngineRole.DECODE),
        TestDialect.engine("d2", "http://10.0.0.4:8200", EngineRole.DECODE)));
    return c.withServing(c.serving().withMaxAttempts(maxAttempts))
        .withRecovery(c.recovery().withEjectAfter(3));
  }

  private static FleetConfig twoByTwo(int maxAttempts) {
    FleetConfig c = RouterFixture.twoByTwo(s -> s.withMaxAttempts(maxAttempts));
    return c.withRecovery(c.recovery().withEjectAfter(3));
  }

  private static Call last(RouterFixture r) {
    List<Call> calls = r.transport.calls();
    return calls.get(calls.size() - 1);
  }

  /** Runs the loop the breaker shares with nothing else, so reports reach the streaks. */
  private void settle(RouterFixture r) {
    r.loop.runPending();
    breakerLoop.runPending();
  }

  private static Map<String, Object> lastRow(RouterFixture r) {
    return r.journal.rows.get(r.journal.rows.size() - 1);
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> failures(Map<String, Object> row) {
    return (List<Map<String, Object>>) row.get("attempt_failures");
  }

  @Test
  void threePoisonedRequests_stopAfterTwoEngines_countAgainstNeither_andHealthyRequestsAreServed() {
    RouterFixture r = withBreaker(twoByTwo(3));
    for (int i = 0; i < 3; i++) {
      int before = r.transport.calls().size();
      Client c = r.submitCompletion();
      r.prefillOk(last(r));
      assertThat(r.iidOf(last(r))).isEqualTo("d1");
      last(r).fail(TransportFailure.Kind.CONNECTION_CLOSED);
      r.loop.advanceMillis(PAST_BACKOFF_MS);
      r.prefillOk(last(r));
      assertThat(r.iidOf(last(r))).isEqualTo("d2");
      last(r).fail(TransportFailure.Kind.CONNECTION_CLOSED);
      r.loop.advanceMillis(PAST_BACKOFF_MS);
      settle(r);

      // max_attempts is 3, yet no third attempt: d3 does not exist, and d1 would fail it again.
      assertThat(r.transport.calls()).hasSize(before + 4);
      assertThat(c.sink().log).containsExactly("error:502:decode");
      assertThat(c.sink().error().code()).isEqualTo("engine_connection");
      Map<String, Object> row = lastRow(r);
      assertThat(row).containsEntry("terminal", "failed").containsEntry("reason", "engine_connection")
          .containsEntry("status", 502).containsEntry("attempts", 2).containsEntry("poisoned", true)
          .containsEntry("first_failed_iid", "d1");
      assertThat(failures(row)).extracting(f -> f.get("retry_reason")).containsExactly("allowed", "poisoned");
    }
    for (String iid : List.of("d1", "d2")) {
      EngineState e = r.fleet.get(iid);
      assertThat(e.streaks().get(FailureClass.CONNECTION)).as(iid + "'s connection streak").isZero();
      assertThat(e.condition()).isEqualTo(EngineCondition.ACTIVE);
    }
    assertThat(events).isEmpty();

    Client healthy = r.submitCompletion();
    r.prefillOk(last(r));
    last(r).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(healthy.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(lastRow(r)).containsEntry("poisoned", false).containsEntry("first_failed_iid", null);
  }

  /** "The same way" includes the engine's own status: 500 twice is the request's, 500 then 501 is not. */
  @ParameterizedTest(name = "d1 answers {0}, d2 answers {1}")
  @CsvSource({"500, 500, true", "500, 501, false"})
  void sameClassAndEngineStatusOnTwoEngines_isPoison_anotherStatusIsNot(int first, int second, boolean poisoned) {
    RouterFixture r = withBreaker(twoByTwo(3));
    Client c = r.submitCompletion();
    r.prefillOk(last(r));
    last(r).respond(first, OpenAiWire.errorBody(first, "cannot decode this prompt"));
    r.loop.advanceMillis(PAST_BACKOFF_MS);
    r.prefillOk(last(r));
    last(r).respond(second, OpenAiWire.errorBody(second, "cannot decode this prompt"));
    r.loop.advanceMillis(PAST_BACKOFF_MS);
    if (!poisoned) {
      // Not the same way: the third attempt runs (falling back to p1, the least loaded producer).
      assertThat(r.transport.calls()).hasSize(5);
      assertThat(c.sink().log).isEmpty();
      // Held failures are blamed once nothing can show them to be the request's: here, its end.
      c.handle().cancel();
    }
    settle(r);

    int streak = poisoned ? 0 : 1;
    assertThat(r.fleet.get("d1").streaks().get(FailureClass.INFERENCE_STATUS)).isEqualTo(streak);
    assertThat(r.fleet.get("d2").streaks().get(FailureClass.INFERENCE_STATUS)).isEqualTo(streak);
    assertThat(r.row()).containsEntry("poisoned", poisoned);
    if (poisoned) {
      assertThat(c.sink().log).containsExactly("error:502:decode");
      assertThat(r.row()).containsEntry("attempts", 2);
    }
  }

  @Test
  void failuresTheRetryDoesNotRepeat_countAgainstTheirEngines() {
    RouterFixture r = withBreaker(twoByTwo(2));
    Client c = r.submitCompletion();
    r.prefillOk(last(r));
    last(r).fail(TransportFailure.Kind.CONNECTION_CLOSED);
    r.loop.advanceMillis(PAST_BACKOFF_MS);
    r.prefillOk(last(r));
    last(r).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    settle(r);

    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.fleet.get("d1").streaks().get(FailureClass.CONNECTION)).isEqualTo(1);
    assertThat(r.row()).containsEntry("poisoned", false).containsEntry("first_failed_iid", "d1");
  }

  @Test
  void deadDecodeEngine_withOneProducer_retriesThroughTheSameProducerOnTheOtherDecodeEngine() {
    RouterFixture r = withBreaker(oneByTwo(2));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    assertThat(r.iidOf(r.call(1))).isEqualTo("d1");
    r.call(1).fail(TransportFailure.Kind.CONNECT_FAILED);
    r.loop.advanceMillis(PAST_BACKOFF_MS);

    // The producer did nothing wrong and is the only one: the retry uses it again.
    assertThat(r.transport.calls()).hasSize(3);
    assertThat(r.iidOf(r.call(2))).isEqualTo("p1");
    r.prefillOk(r.call(2));
    assertThat(r.iidOf(r.call(3))).isEqualTo("d2");
    r.call(3).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    settle(r);

    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.row()).containsEntry("terminal", "completed").containsEntry("attempts", 2)
        .containsEntry("prefill_iid", "p1").containsEntry("decode_iid", "d2")
        .containsEntry("first_failed_iid", "d1");
    // A connection that was never made is the engine's, never the request's.
    assertThat(r.fleet.get("d1").streaks().get(FailureClass.CONNECTION)).isEqualTo(1);
  }

  @Test
  void noEngineLeftInPlacement_theRowStillNamesTheEngineWhoseFailureStartedTheRetry() {
    RouterFixture r = withBreaker(oneByTwo(2));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).fail(TransportFailure.Kind.CONNECT_FAILED);
    // While the retry backs off the breaker holds the only producer (its streak came from others).
    r.fleet.get("p1").setCondition(EngineCondition.HELD, "stream");
    r.loop.advanceMillis(PAST_BACKOFF_MS);

    assertThat(r.transport.calls()).hasSize(2);
    assertThat(c.sink().error().status()).isEqualTo(503);
    assertThat(c.sink().error().message()).isEqualTo(
        "no prefill engine is in placement for this request's retry, which followed a failure on engine d1");
    assertThat(r.row()).containsEntry("reason", "no_engine").containsEntry("first_failed_iid", "d1")
        .containsEntry("prefill_iid", "p1").containsEntry("decode_iid", "d1");
  }
}
