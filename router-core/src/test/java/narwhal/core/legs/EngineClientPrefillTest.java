package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import narwhal.api.FailureClass;
import narwhal.spi.Phase;
import narwhal.spi.PrefillResult;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TransportFailure;
import narwhal.proto.v1.Route;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;

/** The prefill leg: its timeout, cancellation, and what its result carries. */
class EngineClientPrefillTest {

  private static final LegLimits LIMITS = LegLimits.prefill(Duration.ofSeconds(30), ExchangeOptions.defaults());

  private final LegFixture f = new LegFixture();

  @Test
  void prefill_ok_resultCarriesProducerEndpointBackendIdAndParameters() throws Exception {
    CompletableFuture<PrefillResult> future = f.client.prefill(LegFixture.P1, LegFixture.CHAT, LIMITS, f.loop);
    Call call = f.transport.last();
    assertThat(call.engine).isEqualTo(LegFixture.P1.url());
    assertThat(call.request.headers()).containsEntry("X-Request-Id", "b1");
    long startedAt = f.loop.nanoTime();

    f.loop.advanceMillis(120);
    call.respond(200, TestDialectWire.prefillResponse(TestDialectWire.PRODUCER_HANDOFF));

    PrefillResult result = future.get();
    assertThat(result.producerUrl()).isEqualTo("http://10.0.0.1:8100");
    assertThat(result.producerIid()).isEqualTo("p1");
    assertThat(result.endpoint()).isEqualTo("/v1/chat/completions");
    assertThat(result.route()).isEqualTo(Route.ROUTE_CHAT_COMPLETIONS);
    assertThat(result.backendRequestId()).isEqualTo("b1");
    assertThat(result.legStartedNanos()).isEqualTo(startedAt);
    assertThat(result.ageNanos(f.loop.nanoTime())).isEqualTo(Duration.ofMillis(120).toNanos());
    assertThat(OpenAiWire.tree(new com.fasterxml.jackson.databind.ObjectMapper().valueToTree(result.parameters())
        .toString())).isEqualTo(OpenAiWire.tree(TestDialectWire.PRODUCER_HANDOFF));
  }

  @Test
  void prefill_parameters_mutatingTheCopyChangesNothing() throws Exception {
    CompletableFuture<PrefillResult> future = f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);
    f.transport.last().respond(200, TestDialectWire.prefillResponse(TestDialectWire.PRODUCER_HANDOFF));
    PrefillResult result = future.get();

    Map<String, Object> copy = result.parameters();
    copy.clear();

    assertThat(result.parameters()).containsEntry("engine_id", "7f3c1b2a-engine-p").hasSize(8);
  }

  @Test
  void prefill_noAnswer_timesOutExactlyAtPrefillTimeoutAndCancelsExchange() {
    CompletableFuture<PrefillResult> future = f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);
    Call call = f.transport.last();

    f.loop.advanceMillis(29_999);
    assertThat(future).isNotDone();
    assertThat(call.cancelled()).isFalse();

    f.loop.advanceMillis(1);
    EngineFailure failure = LegFixture.prefillFailure(future);
    assertThat(failure.status()).isEqualTo(504);
    assertThat(failure.phase()).isEqualTo(Phase.PREFILL);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.TIMEOUT);
    assertThat(failure.isTransient()).isTrue();
    assertThat(failure.getMessage()).contains("30 s").contains("serving.prefill_timeout_s");
    assertThat(call.cancelled()).isTrue();
  }

  @Test
  void prefill_futureCancelled_cancelsExchange() {
    CompletableFuture<PrefillResult> future = f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);
    Call call = f.transport.last();

    future.cancel(false);
    f.loop.runPending();

    assertThat(call.cancelled()).isTrue();
    assertThat(f.loop.pendingTasks()).isZero();
  }

  @Test
  void prefill_200WithoutTransferParams_failsAsKvHandoff() {
    CompletableFuture<PrefillResult> future = f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);

    f.transport.last().respond(200, TestDialectWire.prefillResponse("null"));

    EngineFailure failure = LegFixture.prefillFailure(future);
    assertThat(failure.failureClass()).isEqualTo(FailureClass.KV_HANDOFF);
    assertThat(failure.status()).isEqualTo(502);
    assertThat(failure.isTransient()).isFalse();
    assertThat(failure.engineIid()).isEqualTo("p1");
    assertThat(f.loop.pendingTasks()).isZero();
  }

  @Test
  void prefill_engine500_fails502Transient() {
    CompletableFuture<PrefillResult> future = f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);

    f.transport.last().respond(500, OpenAiWire.errorBody(500, "Internal server error"));

    EngineFailure failure = LegFixture.prefillFailure(future);
    assertThat(failure.status()).isEqualTo(502);
    assertThat(failure.isTransient()).isTrue();
    assertThat(failure.toRouterError().type()).isEqualTo("prefill");
    assertThat(failure.getMessage()).contains("Internal server error");
  }

  @Test
  void prefill_connectFailed_fails502() {
    CompletableFuture<PrefillResult> future = f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);

    f.transport.last().fail(TransportFailure.Kind.CONNECT_FAILED);

    assertThat(LegFixture.prefillFailure(future).status()).isEqualTo(502);
    assertThat(LegFixture.prefillFailure(future).failureClass()).isEqualTo(FailureClass.CONNECTION);
  }

  @Test
  void prefill_eachLeg_getsAFreshBackendId() {
    f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);
    f.client.prefill(LegFixture.P1, LegFixture.COMPLETION, LIMITS, f.loop);

    assertThat(f.transport.calls()).extracting(c -> c.request.headers().get("X-Request-Id"))
        .containsExactly("b1", "b2");
  }
}
