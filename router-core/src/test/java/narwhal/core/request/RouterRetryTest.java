package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import narwhal.api.RouterError;
import narwhal.spi.TransportFailure;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Failures before output: which ones retry, where the retry goes, and when retries stop. */
class RouterRetryTest {

  private static final long MS = 1_000_000L;

  @Test
  void prefill500_maxAttempts1_fails502PrefillWithoutDecode() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    Client c = r.submitCompletion();

    r.call(0).respond(500, OpenAiWire.errorBody(500, "Internal server error"));
    r.loop.advanceMillis(10_000);

    RouterError error = c.sink().error();
    assertThat(c.sink().log).containsExactly("error:502:prefill");
    assertThat(error.code()).isEqualTo("engine_error");
    assertThat(r.transport.calls()).hasSize(1);
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("status", 502)
        .containsEntry("error_type", "prefill").containsEntry("reason", "engine_error")
        .containsEntry("attempts", 1).containsEntry("prefill_iid", "p1").containsEntry("decode_iid", null)
        .containsEntry("ttft_s", null);
  }

  @Test
  void prefillTransientFailure_maxAttempts2_retriesOnOtherProducerExactlyAfterBackoff() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)));
    Client c = r.submitCompletion();
    // The router's backoff draws from a SplittableRandom with the fixture's seed: the first retry
    // waits base + U·(min(cap, 2·base) − base), with base 0.1 s and cap 1 s: in [100, 200) ms.
    long backoffNanos = firstBackoffNanos(200 * MS);
    assertThat(backoffNanos).isBetween(100 * MS, 200 * MS - 1);

    r.call(0).respond(503, OpenAiWire.errorBody(503, "busy"));
    r.loop.advance(backoffNanos - 1, TimeUnit.NANOSECONDS);
    assertThat(r.transport.calls()).hasSize(1);
    assertThat(r.residentPrefill()).isZero();

    r.loop.advance(1, TimeUnit.NANOSECONDS);
    assertThat(r.transport.calls()).hasSize(2);
    Call retry = r.call(1);
    assertThat(r.iidOf(retry)).isEqualTo("p2");
    assertThat(RouterFixture.backendId(retry)).isEqualTo(c.handle().requestId() + "-p2");
    assertThat(c.sink().log).isEmpty();

    r.prefillOk(retry);
    r.call(2).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(RouterFixture.backendId(r.call(2))).isEqualTo(c.handle().requestId() + "-d2");
    assertThat(r.row()).containsEntry("attempts", 2).containsEntry("prefill_iid", "p2")
        .containsEntry("terminal", "completed");
    assertThat((List<?>) r.row().get("attempt_failures")).hasSize(1);
  }

  @Test
  void decodeFailureBeforeFirstToken_retriesWithNewProducerAndNewConsumer() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    assertThat(r.iidOf(r.call(1))).isEqualTo("d1");

    r.call(1).respond(500, OpenAiWire.errorBody(500, "Internal server error"));
    assertThat(r.residentDecode()).isZero();
    r.loop.advanceMillis(1000);

    assertThat(r.transport.calls()).hasSize(3);
    assertThat(r.iidOf(r.call(2))).isEqualTo("p2");
    r.prefillOk(r.call(2));
    assertThat(r.iidOf(r.call(3))).isEqualTo("d2");
    assertThat(OpenAiWire.tree(r.call(3).body()).path("kv_handoff").path("engine_id").asText())
        .isEqualTo("engine-p2");
    assertThat(r.transport.calls()).extracting(RouterFixture::backendId).doesNotHaveDuplicates();

    r.call(3).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    Map<String, Object> row = r.row();
    assertThat(row).containsEntry("attempts", 2).containsEntry("prefill_iid", "p2")
        .containsEntry("decode_iid", "d2");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> failures = (List<Map<String, Object>>) row.get("attempt_failures");
    assertThat(failures).singleElement().satisfies(f -> assertThat(f)
        .containsEntry("phase", "decode").containsEntry("iid", "d1").containsEntry("attempt", 1));
  }

  @Test
  void everyCapableEngineFailed_theNextAttemptFallsBackToOne_andTheLastAttemptsErrorIsReturned() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).fail(TransportFailure.Kind.CONNECTION_CLOSED);
    r.loop.advanceMillis(1000);
    r.prefillOk(r.call(2));
    r.call(3).fail(TransportFailure.Kind.CONNECT_FAILED);
    r.loop.advanceMillis(1000);

    // Avoidances are preferences: with every engine avoided, the least loaded of each role serves.
    assertThat(r.transport.calls()).hasSize(5);
    assertThat(r.iidOf(r.call(4))).isEqualTo("p1");
    r.prefillOk(r.call(4));
    assertThat(r.iidOf(r.call(5))).isEqualTo("d1");
    r.call(5).fail(TransportFailure.Kind.CONNECT_FAILED);
    r.loop.advanceMillis(5000);

    RouterError error = c.sink().error();
    assertThat(c.sink().log).containsExactly("error:502:decode");
    assertThat(error.code()).isEqualTo("engine_unreachable");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("reason", "engine_unreachable")
        .containsEntry("attempts", 3).containsEntry("first_failed_iid", "d1");
  }

  @Test
  void noEngineInPlacementForTheRetry_fails503BackendUnavailableWithRetryAfter1() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).fail(TransportFailure.Kind.CONNECTION_CLOSED);
    r.fleet.get("d1").setCondition(narwhal.core.fleet.EngineCondition.EJECTED, "connection");
    r.fleet.get("d2").setCondition(narwhal.core.fleet.EngineCondition.HELD, "stream");
    r.loop.advanceMillis(1000);
    r.prefillOk(r.call(2));
    r.loop.advanceMillis(5000);

    assertThat(r.transport.calls()).hasSize(3);
    RouterError error = c.sink().error();
    assertThat(error.status()).isEqualTo(503);
    assertThat(error.type()).isEqualTo("backend_unavailable");
    assertThat(error.code()).isEqualTo("backend_unavailable");
    assertThat(error.retryAfterSeconds()).isEqualTo(1);
    assertThat(c.sink().log).containsExactly("error:503:backend_unavailable");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("reason", "no_engine")
        .containsEntry("status", 503).containsEntry("decode_iid", "d1").containsEntry("first_failed_iid", "d1");
  }

  @Test
  void clientGoneDuringTheBackoff_refundsTheRetryCredit() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)));
    Client c = r.submitCompletion();
    r.call(0).respond(503, OpenAiWire.errorBody(503, "busy"));
    assertThat(r.router.retryBudget().available()).isEqualTo(9.0); // held for the retry

    c.handle().cancel();
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(1);
    assertThat(r.router.retryBudget().available()).isEqualTo(10.0);
    assertThat(r.row()).containsEntry("terminal", "cancelled");
    assertThat(r.loop.pendingTasks()).isZero();
  }

  @Test
  void decodeFailureAfterFirstToken_neverRetries() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("a"));

    r.call(1).fail(TransportFailure.Kind.CONNECTION_CLOSED);
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(2);
    assertThat(c.sink().log).containsExactly("start", "token:a", "error:502:decode");
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("attempts", 1)
        .containsEntry("output_len", 1).containsEntry("status", 502);
    assertThat(onlyFailure(r.row())).containsEntry("retry_reason", "output_started");
  }

  @Test
  void retryBudgetExhausted_transientFailureIsNotRetried() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2).withRetryBudget(1, 0)));
    Client first = r.submitCompletion();
    r.call(0).respond(500, "");
    r.loop.advanceMillis(1000);
    assertThat(r.transport.calls()).hasSize(2);
    r.call(1).respond(500, "");
    assertThat(first.sink().log).containsExactly("error:502:prefill");
    assertThat(r.router.retryBudget().available()).isZero();

    Client second = r.submitCompletion();
    r.call(2).respond(500, "");
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(3);
    assertThat(second.sink().log).containsExactly("error:502:prefill");
    assertThat(r.journal.rows.get(1)).containsEntry("attempts", 1);
  }

  @Test
  void engineRejection400_isRelayedAndNotRetried() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();

    r.call(0).respond(400, OpenAiWire.errorBody(400, "This model's maximum context length is 4096 tokens"));
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(1);
    assertThat(c.sink().error().status()).isEqualTo(400);
    assertThat(c.sink().error().message()).contains("maximum context length");
    assertThat(onlyFailure(r.row())).containsEntry("retry_reason", "non_transient");
  }

  @Test
  void prefillWithoutTransferParams_fails502AndIsNotRetried() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();

    r.call(0).respond(200, TestDialectWire.prefillResponse("null"));
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(1);
    assertThat(c.sink().log).containsExactly("error:502:prefill");
    assertThat(r.row()).containsEntry("reason", "invalid_response");
  }

  // ---- the original deadline ----

  @Test
  void deadlineLeavesLessThanTheBackoffFloor_retryIsNotStarted_failureReturnedAsIs() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2).withRequestTimeoutS(1)));
    Client c = r.submitCompletion();
    // 50 ms left when the producer fails: less than serving.retry_base_s (100 ms).
    r.loop.advanceMillis(950);

    r.call(0).respond(503, OpenAiWire.errorBody(503, "busy"));
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(1);
    assertThat(c.sink().log).containsExactly("error:502:prefill");
    assertThat(c.sink().error().code()).isEqualTo("engine_overloaded");
    assertThat(c.sink().error().message()).isEqualTo("prefill engine p1 answered HTTP 503: busy");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("status", 502)
        .containsEntry("reason", "engine_overloaded").containsEntry("attempts", 1);
    assertThat(onlyFailure(r.row())).containsEntry("retry_reason", "original_deadline");
    // A refused retry spends no credit.
    assertThat(r.router.retryBudget().available()).isEqualTo(10.0);
    assertThat(r.loop.pendingTasks()).isZero();
  }

  @Test
  void deadlineLeavesMoreThanTheFloor_retryWaitsWithinTheTimeLeft() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2).withRequestTimeoutS(1)));
    Client c = r.submitCompletion();
    // 150 ms left: the first retry's range [100, 200) ms is cut to [100, 150) ms.
    r.loop.advanceMillis(850);
    long backoffNanos = firstBackoffNanos(150 * MS);
    assertThat(backoffNanos).isBetween(100 * MS, 150 * MS - 1);

    r.call(0).respond(503, OpenAiWire.errorBody(503, "busy"));
    r.loop.advance(backoffNanos - 1, TimeUnit.NANOSECONDS);
    assertThat(r.transport.calls()).hasSize(1);
    r.loop.advance(1, TimeUnit.NANOSECONDS);

    assertThat(r.transport.calls()).hasSize(2);
    assertThat(r.iidOf(r.call(1))).isEqualTo("p2");
    assertThat(c.sink().log).isEmpty();
    r.prefillOk(r.call(1));
    r.call(2).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(onlyFailure(r.row())).containsEntry("retry_reason", "allowed");
  }

  // ---- which faults retry ----

  @Test
  void firstTokenTimeout_isRetriedOnANewPair() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).sse();

    r.loop.advanceMillis(2499);
    assertThat(r.transport.calls()).hasSize(2);
    r.loop.advanceMillis(1);
    assertThat(r.residentDecode()).isZero();
    assertThat(r.call(1).cancelled()).isTrue();
    r.loop.advanceMillis(200); // the longest first backoff

    assertThat(r.transport.calls()).hasSize(3);
    assertThat(r.iidOf(r.call(2))).isEqualTo("p2");
    r.prefillOk(r.call(2));
    assertThat(r.iidOf(r.call(3))).isEqualTo("d2");
    r.call(3).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();

    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.row()).containsEntry("terminal", "completed").containsEntry("attempts", 2)
        .containsEntry("prefill_iid", "p2").containsEntry("decode_iid", "d2");
    assertThat(onlyFailure(r.row())).containsEntry("phase", "decode").containsEntry("iid", "d1")
        .containsEntry("reason", "engine_timeout").containsEntry("retry_reason", "allowed");
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"prefill, 408", "prefill, 429", "decode, 408", "decode, 429"})
  void engine408And429BeforeOutput_areRetried(String phase, int status) {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(2)));
    Client c = r.submitCompletion();
    int failing = 0;
    if (phase.equals("decode")) {
      r.prefillOk(r.call(0));
      failing = 1;
    }

    r.call(failing).respond(status, OpenAiWire.errorBody(status, "try later"));
    r.loop.advanceMillis(200);

    // The retry starts from a new producer either way (a decode failure excludes both engines).
    Call retry = r.call(failing + 1);
    assertThat(r.iidOf(retry)).isEqualTo("p2");
    r.prefillOk(retry);
    r.call(failing + 2).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.row()).containsEntry("attempts", 2);
    assertThat(onlyFailure(r.row())).containsEntry("phase", phase).containsEntry("reason", "engine_overloaded")
        .containsEntry("retry_reason", "allowed");
  }

  // ---- the shared budget ----

  @Test
  void budgetExhausted_thenReplenishedBySuccesses_letsALaterRequestRetry() {
    RouterFixture r = new RouterFixture(
        RouterFixture.twoByTwo(s -> s.withMaxAttempts(2).withRetryBudget(1, 0.5)));

    // A: fails once, retries with the only credit, completes (+0.5).
    Client a = r.submitCompletion();
    r.call(0).respond(503, "");
    r.loop.advanceMillis(200);
    r.prefillOk(r.call(1));
    r.call(2).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(a.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.router.retryBudget().available()).isEqualTo(0.5);

    // B: half a credit is not a retry.
    Client b = r.submitCompletion();
    r.call(3).respond(503, "");
    r.loop.advanceMillis(10_000);
    assertThat(r.transport.calls()).hasSize(4);
    assertThat(b.sink().log).containsExactly("error:502:prefill");
    assertThat(onlyFailure(r.journal.rows.get(1))).containsEntry("retry_reason", "shared_budget");

    // C: another success earns the whole credit back.
    Client ok = r.submitCompletion();
    r.prefillOk(r.call(4));
    r.call(5).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(ok.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.router.retryBudget().available()).isEqualTo(1.0);

    // D: retries again.
    Client d = r.submitCompletion();
    r.call(6).respond(503, "");
    r.loop.advanceMillis(200);
    assertThat(r.transport.calls()).hasSize(8);
    assertThat(r.iidOf(r.call(7))).isEqualTo("p2");
    r.prefillOk(r.call(7));
    r.call(8).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(d.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(r.journal.rows.get(3)).containsEntry("attempts", 2);
    assertThat(onlyFailure(r.journal.rows.get(3))).containsEntry("retry_reason", "allowed");
    assertThat(r.router.retryBudget().available()).isEqualTo(0.5);
  }

  /**
   * The router's first backoff with the default base (100 ms): the fixture's seeded random is the
   * router's jitter source, so its first draw spans [100 ms, rangeTop).
   */
  private static long firstBackoffNanos(long rangeTopNanos) {
    double u = new SplittableRandom(RouterFixture.SEED).nextDouble();
    return 100 * MS + (long) (u * (rangeTopNanos - 100 * MS));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> onlyFailure(Map<String, Object> row) {
    List<Map<String, Object>> failures = (List<Map<String, Object>>) row.get("attempt_failures");
    assertThat(failures).hasSize(1);
    return failures.get(0);
  }
}
