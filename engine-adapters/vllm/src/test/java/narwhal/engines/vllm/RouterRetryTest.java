package narwhal.engines.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import narwhal.core.api.RouterError;
import narwhal.engines.spi.TransportFailure;
import narwhal.engines.vllm.RouterFixture.Client;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/** Failures before output: which ones retry, where the retry goes, and when retries stop. */
class RouterRetryTest {

  @Test
  void prefill500_maxAttempts1_fails502PrefillWithoutDecode() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    Client c = r.submitCompletion();

    r.call(0).respond(500, Wire.errorBody(500, "Internal server error"));
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
    // waits U·min(cap, base) with base 0.1 s, cap 1 s.
    long backoffNanos = (long) (new SplittableRandom(RouterFixture.SEED).nextDouble() * 100_000_000L);
    assertThat(backoffNanos).isPositive();

    r.call(0).respond(503, Wire.errorBody(503, "busy"));
    r.loop.advance(backoffNanos - 1, TimeUnit.NANOSECONDS);
    assertThat(r.transport.calls()).hasSize(1);
    assertThat(r.residentPrefill()).isZero();

    r.loop.advance(1, TimeUnit.NANOSECONDS);
    assertThat(r.transport.calls()).hasSize(2);
    Call retry = r.call(1);
    assertThat(r.iidOf(retry)).isEqualTo("p2");
    assertThat(RouterFixture.backendId(retry)).isEqualTo("b2").isNotEqualTo(RouterFixture.backendId(r.call(0)));
    assertThat(c.sink().log).isEmpty();

    r.prefillOk(retry);
    r.call(2).sse().event(Wire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(RouterFixture.backendId(r.call(2))).isEqualTo("b3");
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

    r.call(1).respond(500, Wire.errorBody(500, "Internal server error"));
    assertThat(r.residentDecode()).isZero();
    r.loop.advanceMillis(1000);

    assertThat(r.transport.calls()).hasSize(3);
    assertThat(r.iidOf(r.call(2))).isEqualTo("p2");
    r.prefillOk(r.call(2));
    assertThat(r.iidOf(r.call(3))).isEqualTo("d2");
    assertThat(Wire.tree(r.call(3).body()).path("kv_transfer_params").path("remote_engine_id").asText())
        .isEqualTo("engine-p2");
    assertThat(r.transport.calls()).extracting(RouterFixture::backendId).doesNotHaveDuplicates();

    r.call(3).sse().event(Wire.completionToken("a")).event("[DONE]").end();
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
  void everyCapableEngineFailed_fails503BackendUnavailableWithRetryAfter1() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).fail(TransportFailure.Kind.CONNECTION_CLOSED);
    r.loop.advanceMillis(1000);
    r.prefillOk(r.call(2));
    r.call(3).fail(TransportFailure.Kind.CONNECT_FAILED);

    r.loop.advanceMillis(5000);

    assertThat(r.transport.calls()).hasSize(4);
    RouterError error = c.sink().error();
    assertThat(error.status()).isEqualTo(503);
    assertThat(error.type()).isEqualTo("backend_unavailable");
    assertThat(error.code()).isEqualTo("backend_unavailable");
    assertThat(error.retryAfterSeconds()).isEqualTo(1);
    assertThat(c.sink().log).containsExactly("error:503:backend_unavailable");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("reason", "no_engine")
        .containsEntry("status", 503);
  }

  @Test
  void decodeFailureAfterFirstToken_neverRetries() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();
    r.prefillOk(r.call(0));
    r.call(1).sse().event(Wire.completionToken("a"));

    r.call(1).fail(TransportFailure.Kind.CONNECTION_CLOSED);
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(2);
    assertThat(c.sink().log).containsExactly("start", "token:a", "error:502:decode");
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("attempts", 1)
        .containsEntry("output_len", 1).containsEntry("status", 502);
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

    r.call(0).respond(400, Wire.errorBody(400, "This model's maximum context length is 4096 tokens"));
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(1);
    assertThat(c.sink().error().status()).isEqualTo(400);
    assertThat(c.sink().error().message()).contains("maximum context length");
  }

  @Test
  void prefillWithoutTransferParams_fails502AndIsNotRetried() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(3)));
    Client c = r.submitCompletion();

    r.call(0).respond(200, Wire.prefillResponse("null"));
    r.loop.advanceMillis(10_000);

    assertThat(r.transport.calls()).hasSize(1);
    assertThat(c.sink().log).containsExactly("error:502:prefill");
    assertThat(r.row()).containsEntry("reason", "invalid_response");
  }
}
