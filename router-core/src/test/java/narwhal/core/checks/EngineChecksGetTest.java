package narwhal.core.checks;

import static narwhal.core.checks.ChecksFixture.B1;
import static narwhal.core.checks.ChecksFixture.D1;
import static narwhal.core.checks.ChecksFixture.done;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.spi.TransportFailure;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/** The plain-request checks: health and the served model, and their time bound. */
class EngineChecksGetTest {

  private final ChecksFixture f = new ChecksFixture();

  @Test
  void health_200_passesWithItsTime() {
    CompletableFuture<CheckResult> future = f.checks.health(D1, f.loop);
    Call call = f.call(0);
    assertThat(call.engine).isEqualTo(D1.url());
    assertThat(call.request.method()).isEqualTo("GET");
    assertThat(call.request.path()).isEqualTo("/health");

    f.loop.advanceMillis(3);
    call.respond(200, "");

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.check()).isEqualTo("health");
    assertThat(result.subject()).isEqualTo("d1");
    assertThat(result.detail()).isEqualTo("health 3 ms");
    assertThat(result.elapsedMillis()).isEqualTo(3);
    assertThat(f.loop.pendingTasks()).as("the timeout timer is cancelled").isZero();
  }

  @Test
  void health_503_failsSayingTheEngineIsNotHealthy() {
    CompletableFuture<CheckResult> future = f.checks.health(D1, f.loop);
    f.call(0).respond(503, "");

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.failedIid()).isEqualTo("d1");
    assertThat(result.detail()).contains("HTTP 503");
  }

  @Test
  void health_connectionRefused_failsAsUnreachable() {
    CompletableFuture<CheckResult> future = f.checks.health(D1, f.loop);
    f.call(0).fail(TransportFailure.Kind.CONNECT_FAILED);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).startsWith("unreachable: GET " + D1.url());
  }

  @Test
  void unreachableLines_nameTheUrlWithoutItsCredentials() {
    assertThat(RawGet.withoutCredentials(java.net.URI.create("http://user:s3cret@10.0.0.7:8000/v1?key=k")))
        .isEqualTo("http://10.0.0.7:8000/v1");
    assertThat(RawGet.withoutCredentials(java.net.URI.create("http://10.0.0.7:8000"))).isEqualTo("http://10.0.0.7:8000");
  }

  @Test
  void health_noAnswer_failsExactlyAtTheHealthTimeoutAndCancelsTheExchange() {
    CompletableFuture<CheckResult> future = f.checks.health(D1, f.loop);
    Call call = f.call(0);

    f.loop.advanceMillis(4_999);
    assertThat(future).isNotDone();
    assertThat(call.cancelled()).isFalse();

    f.loop.advanceMillis(1);
    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).isEqualTo("health check: no answer within 5 s (engine.health_timeout_s)");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void servesModel_listNamesTheFleetModel_passes() {
    CompletableFuture<CheckResult> future = f.checks.servesModel(B1, f.loop);
    Call call = f.call(0);
    assertThat(call.request.path()).isEqualTo("/v1/models");

    call.respond(200, ChecksFixture.MODELS);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.detail()).isEqualTo("model m");
  }

  @Test
  void servesModel_anotherModel_failsNamingWhatTheEngineServes() {
    CompletableFuture<CheckResult> future = f.checks.servesModel(B1, f.loop);
    f.call(0).respond(200, ChecksFixture.MODELS.replace("\"m\"", "\"other\""));

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.detail()).contains("engine serves [other, m-lora]", "not the fleet's model 'm'");
  }

  @Test
  void servesModel_unreadableList_fails() {
    CompletableFuture<CheckResult> future = f.checks.servesModel(B1, f.loop);
    f.call(0).respond(200, "{\"object\":\"list\"}");

    assertThat(done(future).detail()).contains("model list (GET /v1/models) is unreadable", "\"data\"");
  }

  @Test
  void servesModel_noAnswer_failsAtTheHealthTimeout() {
    CompletableFuture<CheckResult> future = f.checks.servesModel(B1, f.loop);

    f.loop.advanceMillis(5_000);

    assertThat(done(future).detail()).contains("no answer within 5 s");
    assertThat(f.call(0).cancelled()).isTrue();
  }
}
