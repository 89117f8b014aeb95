package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import narwhal.testing.ManualScheduler;
import narwhal.core.legs.EngineFailure;
import narwhal.testing.ScriptedTransport.Call;
import org.junit.jupiter.api.Test;

/**
 * Which engine a failed SGLang attempt is blamed on, on a manual clock with the test playing both
 * engines. Both legs run at once and an SGLang prefill answers only once its decode has joined the
 * rendezvous, so when the decode leg fails while the prefill is still out the router must decide
 * which engine held the other up: a decode that accepted its leg (200 stream head) and then got no
 * KV was waiting on the producer; a decode that answered an error status, or no head at all, failed
 * on its own.
 */
class SglangLegBlameTest {

  // Production's shape: the prefill bound far above the first-token bound.
  private final SglangPair pair = new SglangPair(c -> c
      .withEngine(c.engine().withFirstTokenTimeoutS(2.0))
      .withServing(c.serving().withPrefillTimeoutS(120)), transport -> transport);
  private final ManualScheduler loop = pair.loop;
  private final List<EngineFailure> blamed = pair.blamed;
  private final Call decode = pair.decode;
  private final Call prefill = pair.prefill;

  @Test
  void aDecodeThatAnswers504Itself_isTheDecodesTimeout_andThePrefillIsCancelled() {
    decode.respond(504, "{\"object\":\"error\",\"message\":\"decode gave up\",\"code\":504}");

    assertThat(pair.error.status()).isEqualTo(504);
    assertThat(pair.error.type()).isEqualTo("decode");
    assertThat(pair.error.message()).contains("decode engine d1 answered HTTP 504");
    assertThat(prefill.cancelled()).isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }

  @Test
  void aDecodeThatAnswers408Itself_isTheDecodesOverload() {
    decode.respond(408, "{\"object\":\"error\",\"message\":\"queue timeout\",\"code\":408}");

    assertThat(pair.error.status()).isEqualTo(504);
    assertThat(pair.error.type()).isEqualTo("decode");
    assertThat(prefill.cancelled()).isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }

  @Test
  void aDecodeThatNeverSendsItsHead_spendsItsOwnFirstTokenBudget() {
    loop.advanceMillis(1_999);
    assertThat(pair.error).as("still within the first-token budget").isNull();

    loop.advanceMillis(1);

    assertThat(pair.error.status()).isEqualTo(504);
    assertThat(pair.error.type()).isEqualTo("decode");
    assertThat(pair.error.message()).startsWith("no first token within");
    assertThat(prefill.cancelled()).as("the prefill must not outlive its decode").isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }

  @Test
  void aDecodeThatAcceptedAndWaitsForTheKv_whileThePrefillIsSilent_isTheProducersTimeout() {
    decode.sse();

    loop.advanceMillis(2_000);

    assertThat(pair.error.status()).isEqualTo(504);
    assertThat(pair.error.type()).isEqualTo("prefill");
    assertThat(pair.error.message()).startsWith("prefill engine p1 had not answered when decode engine d1 gave up");
    assertThat(prefill.cancelled()).isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("p1");
  }

  @Test
  void aDecodeThatAcceptedAndTimesOutAfterThePrefillAnswered_isTheDecodesTimeout() {
    decode.sse();
    loop.advanceMillis(10);
    prefill.respond(200, "{\"choices\":[{\"text\":\" x\",\"finish_reason\":\"length\"}]}");

    loop.advanceMillis(1_990);

    assertThat(pair.error.type()).isEqualTo("decode");
    assertThat(pair.error.message()).startsWith("no first token within");
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }
}
