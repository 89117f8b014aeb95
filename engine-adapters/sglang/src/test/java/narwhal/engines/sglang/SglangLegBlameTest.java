package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.api.ClientSink;
import narwhal.core.api.ResponseStart;
import narwhal.core.api.RouterError;
import narwhal.core.fleet.Fleet;
import narwhal.core.health.EngineHealthTracker;
import narwhal.core.journal.Journal;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.core.time.ManualScheduler;
import narwhal.engines.client.EngineClient;
import narwhal.engines.client.EngineFailure;
import narwhal.engines.spi.EngineDialects;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.ScriptedTransport.Call;
import org.jspecify.annotations.Nullable;
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

  private static final String STREAM = "{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":4,\"stream\":true}";

  private final ManualScheduler loop = new ManualScheduler();
  private final ScriptedTransport transport = new ScriptedTransport();
  private final List<EngineFailure> blamed = new ArrayList<>();
  private final Sink sink = new Sink();
  private final Call decode;
  private final Call prefill;

  SglangLegBlameTest() {
    FleetConfig config = FleetConfig.of("m", List.of(
        engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        engine("d1", "http://10.0.0.3:8200", EngineRole.DECODE)));
    // Production's shape: the prefill bound far above the first-token bound.
    config = config.withEngine(config.engine().withDialect(SglangDialect.NAME).withFirstTokenTimeoutS(2.0))
        .withServing(config.serving().withPrefillTimeoutS(120));
    EngineClient engines = new EngineClient(transport, EngineDialects.of(new SglangDialect()));
    DisaggregatedRouter router = new DisaggregatedRouter(config, new Fleet(config.engines()), engines,
        Journal.none(), Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC),
        new SplittableRandom(3), new Breaker());
    router.submit(Wire.completions(STREAM), sink, loop, loop.nanoTime());
    loop.runPending();
    assertThat(transport.calls()).as("both legs at once").hasSize(2);
    decode = transport.calls().get(0);
    prefill = transport.calls().get(1);
    assertThat(decode.engine.getPort()).isEqualTo(8200);
  }

  private static EngineSpec engine(String iid, String url, EngineRole role) {
    return EngineSpec.of(iid, url, role).withDialect(SglangDialect.NAME)
        .withDialectOptions(Map.of("bootstrap_port", 8998));
  }

  @Test
  void aDecodeThatAnswers504Itself_isTheDecodesTimeout_andThePrefillIsCancelled() {
    decode.respond(504, "{\"object\":\"error\",\"message\":\"decode gave up\",\"code\":504}");

    assertThat(sink.error.status()).isEqualTo(504);
    assertThat(sink.error.type()).isEqualTo("decode");
    assertThat(sink.error.message()).contains("decode engine d1 answered HTTP 504");
    assertThat(prefill.cancelled()).isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }

  @Test
  void aDecodeThatAnswers408Itself_isTheDecodesOverload() {
    decode.respond(408, "{\"object\":\"error\",\"message\":\"queue timeout\",\"code\":408}");

    assertThat(sink.error.status()).isEqualTo(504);
    assertThat(sink.error.type()).isEqualTo("decode");
    assertThat(prefill.cancelled()).isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }

  @Test
  void aDecodeThatNeverSendsItsHead_spendsItsOwnFirstTokenBudget() {
    loop.advanceMillis(1_999);
    assertThat(sink.error).as("still within the first-token budget").isNull();

    loop.advanceMillis(1);

    assertThat(sink.error.status()).isEqualTo(504);
    assertThat(sink.error.type()).isEqualTo("decode");
    assertThat(sink.error.message()).startsWith("no first token within");
    assertThat(prefill.cancelled()).as("the prefill must not outlive its decode").isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }

  @Test
  void aDecodeThatAcceptedAndWaitsForTheKv_whileThePrefillIsSilent_isTheProducersTimeout() {
    decode.sse();

    loop.advanceMillis(2_000);

    assertThat(sink.error.status()).isEqualTo(504);
    assertThat(sink.error.type()).isEqualTo("prefill");
    assertThat(sink.error.message()).startsWith("prefill engine p1 had not answered when decode engine d1 gave up");
    assertThat(prefill.cancelled()).isTrue();
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("p1");
  }

  @Test
  void aDecodeThatAcceptedAndTimesOutAfterThePrefillAnswered_isTheDecodesTimeout() {
    decode.sse();
    loop.advanceMillis(10);
    prefill.respond(200, "{\"choices\":[{\"text\":\" x\",\"finish_reason\":\"length\"}]}");

    loop.advanceMillis(1_990);

    assertThat(sink.error.type()).isEqualTo("decode");
    assertThat(sink.error.message()).startsWith("no first token within");
    assertThat(blamed).extracting(EngineFailure::engineIid).containsExactly("d1");
  }

  /** Records the failures the breaker hears of. */
  private final class Breaker implements EngineHealthTracker {
    @Override
    public void prefillSucceeded(String iid) {}

    @Override
    public void decodeSucceeded(String iid) {}

    @Override
    public void legFailed(EngineFailure failure, @Nullable String producerIid) {
      blamed.add(failure);
    }

    @Override
    public boolean admissionHeld() {
      return false;
    }
  }

  /** A client that keeps its one error. */
  private static final class Sink implements ClientSink {
    @Nullable RouterError error;

    @Override
    public void onStart(ResponseStart start) {
      throw new AssertionError("no output was expected");
    }

    @Override
    public void onEvent(StreamEvent event) {}

    @Override
    public void onComplete() {
      throw new AssertionError("no completion was expected");
    }

    @Override
    public void onError(RouterError e) {
      assertThat(error).as("one error only").isNull();
      error = e;
    }

    @Override
    public boolean isWritable() {
      return true;
    }
  }
}
