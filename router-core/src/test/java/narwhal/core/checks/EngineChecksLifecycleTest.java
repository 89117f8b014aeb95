package narwhal.core.checks;

import static narwhal.core.checks.ChecksFixture.B1;
import static narwhal.core.checks.ChecksFixture.D1;
import static narwhal.core.checks.ChecksFixture.P1;
import static narwhal.core.checks.ChecksFixture.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/** Lifecycle validation: the checks in order, stopping at the first failure. */
class EngineChecksLifecycleTest {

  private final ChecksFixture f = new ChecksFixture();
  private final List<String> seen = new ArrayList<>();

  /** Plays every engine healthy, except that calls matching {@code failing} get HTTP 500. */
  private void play(Predicate<Call> failing) {
    for (int i = 0; i < f.transport.calls().size(); i++) {
      Call call = f.transport.calls().get(i);
      boolean prefill = call.body().contains("\"kv_handoff\":{\"produce\":true}");
      String kind = call.request.path().equals("/health") ? "health"
          : call.request.path().equals("/v1/models") ? "models" : prefill ? "prefill" : "decode";
      String host = call.engine.getHost();
      String iid = host.endsWith(".1") ? "p1" : host.endsWith(".2") ? "d1" : "b1";
      seen.add(kind + "@" + iid);
      if (failing.test(call)) {
        call.respond(500, OpenAiWire.errorBody(500, "broken"));
      } else if (kind.equals("health")) {
        call.respond(200, "");
      } else if (kind.equals("models")) {
        call.respond(200, ChecksFixture.MODELS);
      } else if (prefill) {
        ChecksFixture.answerPrefill(call, "engine-" + iid);
      } else {
        ChecksFixture.answerDecode(call);
      }
    }
  }

  private static Predicate<Call> at(String path, String url) {
    return c -> c.request.path().equals(path) && c.engine.toString().equals(url);
  }

  @Test
  void lifecycle_healthyBothEngine_runsEveryStepAndBothTransferDirections() {
    CompletableFuture<CheckResult> future = f.checks.lifecycle(B1, List.of(P1, B1, D1), f.loop);
    play(c -> false);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.check()).isEqualTo("lifecycle");
    assertThat(seen).containsExactly("health@b1", "models@b1", "prefill@b1", "decode@b1",
        "prefill@b1", "decode@d1", "prefill@p1", "decode@b1");
    assertThat(result.detail()).isEqualTo("health 0 ms, model m, contract (no contract pinned), generation 0 ms, "
        + "b1 -> d1 kv transfer 0 ms, p1 -> b1 kv transfer 0 ms");
  }

  @Test
  void lifecycle_healthFails_stopsThere() {
    CompletableFuture<CheckResult> future = f.checks.lifecycle(B1, List.of(P1, D1), f.loop);
    play(c -> c.request.path().equals("/health"));

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.check()).isEqualTo("health");
    assertThat(seen).containsExactly("health@b1");
  }

  @Test
  void lifecycle_generationFails_noTransferIsTried() {
    CompletableFuture<CheckResult> future = f.checks.lifecycle(D1, List.of(P1), f.loop);
    play(at("/v1/completions", "http://10.0.0.2:8200"));

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.check()).isEqualTo("generation");
    assertThat(seen).containsExactly("health@d1", "models@d1", "decode@d1");
  }

  @Test
  void lifecycle_peerProducerFails_isInconclusiveForTheDecodeEngine() {
    CompletableFuture<CheckResult> future = f.checks.lifecycle(D1, List.of(P1), f.loop);
    play(at("/v1/completions", "http://10.0.0.1:8100"));

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.INCONCLUSIVE);
    assertThat(result.check()).isEqualTo("kv_transfer");
    assertThat(result.failedIid()).isEqualTo("p1");
    assertThat(seen).containsExactly("health@d1", "models@d1", "decode@d1", "prefill@p1");
  }

  @Test
  void lifecycle_ownDecodeOfAPeersHandoffFails_failsTheEngine() {
    CompletableFuture<CheckResult> future = f.checks.lifecycle(D1, List.of(P1), f.loop);
    // The generation decode (call 2) passes; the transfer's decode (call 4) fails.
    play(c -> f.transport.calls().indexOf(c) == 4);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.subject()).isEqualTo("p1 -> d1");
    assertThat(result.failedIid()).isEqualTo("d1");
  }

  @Test
  void lifecycle_noLivePeer_passesNotingTheSkippedTransfer() {
    CompletableFuture<CheckResult> future = f.checks.lifecycle(P1, List.of(P1), f.loop);
    play(c -> false);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.detail()).endsWith("; skipped: no live decode-capable peer to send a KV handoff to");
  }
}
