package narwhal.core.checks;

import static narwhal.core.checks.ChecksFixture.B1;
import static narwhal.core.checks.ChecksFixture.D1;
import static narwhal.core.checks.ChecksFixture.P1;
import static narwhal.core.checks.ChecksFixture.answerDecode;
import static narwhal.core.checks.ChecksFixture.answerPrefill;
import static narwhal.core.checks.ChecksFixture.done;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.CompletableFuture;
import narwhal.core.checks.CheckResult.Outcome;
import narwhal.spi.Phase;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.TestDialectWire;
import org.junit.jupiter.api.Test;

/** The inference probes: generation through one engine, and the KV transfer between two. */
class EngineChecksProbeTest {

  private final ChecksFixture f = new ChecksFixture();

  @Test
  void generation_bothRoles_prefillThenSameEngineDecodeWithoutTransferParameters() {
    CompletableFuture<CheckResult> future = f.checks.generation(B1, f.loop);
    Call prefill = f.call(0);
    assertThat(prefill.engine).isEqualTo(B1.url());
    JsonNode prefillBody = OpenAiWire.tree(prefill.body());
    assertThat(prefillBody.get("model").asText()).isEqualTo("m");
    assertThat(prefillBody.get("max_tokens").asInt()).isEqualTo(1);
    assertThat(prefillBody.get("kv_handoff").get("produce").asBoolean()).isTrue();

    f.loop.advanceMillis(4);
    answerPrefill(prefill, "engine-b1");
    Call decode = f.call(1);
    assertThat(decode.engine).isEqualTo(B1.url());
    JsonNode decodeBody = OpenAiWire.tree(decode.body());
    assertThat(decodeBody.has("kv_handoff")).isFalse();
    assertThat(decodeBody.get("max_tokens").asInt()).isEqualTo(2);
    assertThat(decodeBody.get("stream").asBoolean()).isTrue();
    f.loop.advanceMillis(4);
    answerDecode(decode);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.detail()).isEqualTo("generation 8 ms");
  }

  @Test
  void generation_prefillEngine_runsThePrefillLegOnly() {
    CompletableFuture<CheckResult> future = f.checks.generation(P1, f.loop);
    answerPrefill(f.call(0), "engine-p1");

    assertThat(done(future).passed()).isTrue();
    assertThat(f.transport.calls()).hasSize(1);
  }

  @Test
  void generation_decodeEngine_runsADecodeLegThatRecomputesThePrompt() {
    CompletableFuture<CheckResult> future = f.checks.generation(D1, f.loop);
    Call decode = f.call(0);
    assertThat(decode.engine).isEqualTo(D1.url());
    assertThat(OpenAiWire.tree(decode.body()).has("kv_handoff")).isFalse();
    answerDecode(decode);

    assertThat(done(future).passed()).isTrue();
    assertThat(f.transport.calls()).hasSize(1);
  }

  @Test
  void generation_silentFirstToken_failsAtTheFirstTokenTimeout() {
    CompletableFuture<CheckResult> future = f.checks.generation(D1, f.loop);
    f.call(0).sse();

    f.loop.advanceMillis(2_499);
    assertThat(future).isNotDone();
    f.loop.advanceMillis(1);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.failedPhase()).isEqualTo(Phase.DECODE);
    assertThat(result.failedIid()).isEqualTo("d1");
    assertThat(result.detail()).startsWith("generation probe failed: no first token within 2.5 s");
    assertThat(f.call(0).cancelled()).isTrue();
  }

  @Test
  void generation_prefillLeg_isBoundedByTheFirstTokenTimeoutNotThePrefillTimeout() {
    CompletableFuture<CheckResult> future = f.checks.generation(P1, f.loop);

    f.loop.advanceMillis(2_499);
    assertThat(future).isNotDone();
    f.loop.advanceMillis(1);

    CheckResult result = done(future);
    assertThat(result.failedPhase()).isEqualTo(Phase.PREFILL);
    assertThat(result.failedIid()).isEqualTo("p1");
    assertThat(f.call(0).cancelled()).isTrue();
  }

  @Test
  void kvTransfer_decodeCarriesTheProducersHandoff_passes() {
    CompletableFuture<CheckResult> future = f.checks.kvTransfer(P1, D1, f.loop);
    Call prefill = f.call(0);
    assertThat(prefill.engine).isEqualTo(P1.url());
    f.loop.advanceMillis(5);
    answerPrefill(prefill, "engine-p1");

    Call decode = f.call(1);
    assertThat(decode.engine).isEqualTo(D1.url());
    JsonNode params = OpenAiWire.tree(decode.body()).get("kv_handoff");
    assertThat(params.get("engine_id").asText()).isEqualTo("engine-p1");
    assertThat(params.get("consumer_pulls").asBoolean()).isTrue();
    f.loop.advanceMillis(7);
    answerDecode(decode);

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.PASSED);
    assertThat(result.check()).isEqualTo("kv_transfer");
    assertThat(result.subject()).isEqualTo("p1 -> d1");
    assertThat(result.detail()).isEqualTo("kv transfer 12 ms");
  }

  @Test
  void kvTransfer_producerFails_blamesTheProducerAndIsInconclusiveForTheConsumer() {
    CompletableFuture<CheckResult> future = f.checks.kvTransfer(P1, D1, f.loop);
    f.call(0).respond(500, OpenAiWire.errorBody(500, "boom"));

    CheckResult result = done(future);
    assertThat(result.outcome()).isEqualTo(Outcome.FAILED);
    assertThat(result.failedPhase()).isEqualTo(Phase.PREFILL);
    assertThat(result.failedIid()).isEqualTo("p1");
    assertThat(result.outcomeFor("p1")).isEqualTo(Outcome.FAILED);
    assertThat(result.outcomeFor("d1")).isEqualTo(Outcome.INCONCLUSIVE);
    assertThat(result.detail()).startsWith("kv transfer failed: ").contains("HTTP 500", "boom");
    assertThat(f.transport.calls()).as("no decode without a handoff").hasSize(1);
  }

  @Test
  void kvTransfer_unusableHandoff_blamesTheProducer() {
    CompletableFuture<CheckResult> future = f.checks.kvTransfer(P1, D1, f.loop);
    f.call(0).respond(200, TestDialectWire.prefillResponse("null"));

    CheckResult result = done(future);
    assertThat(result.failedIid()).isEqualTo("p1");
    assertThat(result.outcomeFor("d1")).isEqualTo(Outcome.INCONCLUSIVE);
  }

  @Test
  void kvTransfer_consumerFails_blamesTheConsumer() {
    CompletableFuture<CheckResult> future = f.checks.kvTransfer(P1, D1, f.loop);
    answerPrefill(f.call(0), "engine-p1");
    f.call(1).sse().event(OpenAiWire.completionToken(" a")).end();

    CheckResult result = done(future);
    assertThat(result.failedPhase()).isEqualTo(Phase.DECODE);
    assertThat(result.failedIid()).isEqualTo("d1");
    assertThat(result.outcomeFor("d1")).isEqualTo(Outcome.FAILED);
    assertThat(result.outcomeFor("p1")).isEqualTo(Outcome.INCONCLUSIVE);
    assertThat(result.detail()).contains("before [DONE]");
  }
}
