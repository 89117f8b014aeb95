package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.api.ClientSink;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.core.fleet.Fleet;
import narwhal.core.health.EngineHealthTracker;
import narwhal.core.journal.Journal;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.testing.ManualScheduler;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineTransport;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.ScriptedTransport.Call;
import org.jspecify.annotations.Nullable;

/**
 * One SGLang pair (p1 prefill, d1 decode) behind a router on a manual clock, with the test playing
 * both engines: submits one streaming completion, whose two legs go out at once, and keeps what
 * the breaker and the client hear.
 */
final class SglangPair {

  private static final String STREAM = "{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":4,\"stream\":true}";

  final ManualScheduler loop = new ManualScheduler();
  final ScriptedTransport transport = new ScriptedTransport();
  /** The failures the breaker heard of, in order. */
  final List<EngineFailure> blamed = new ArrayList<>();
  /** The client's one error, once it has one. */
  @Nullable RouterError error;
  final Call decode;
  final Call prefill;

  /**
   * @param tweak changes to the fleet config (the dialect is already SGLang)
   * @param wrap what stands between the engine client and the scripted engines (e.g. a key)
   */
  SglangPair(UnaryOperator<FleetConfig> tweak, UnaryOperator<EngineTransport> wrap) {
    FleetConfig config = FleetConfig.of("m", List.of(
        engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        engine("d1", "http://10.0.0.3:8200", EngineRole.DECODE)));
    config = tweak.apply(config.withEngine(config.engine().withDialect(SglangDialect.NAME)));
    EngineClient engines = new EngineClient(wrap.apply(transport), EngineDialects.of(new SglangDialect()));
    DisaggregatedRouter router = new DisaggregatedRouter(config, new Fleet(config.engines()), engines,
        Journal.none(), Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC),
        new SplittableRandom(3), new Breaker());
    router.submit(router.admit(narwhal.api.Arrival.now(loop, narwhal.api.FrontEnd.HTTP, narwhal.api.Caller.ANONYMOUS,
        null, null, narwhal.api.TraceContext.NONE)), SglangWire.completions(STREAM), new Sink());
    loop.runPending();
    assertThat(transport.calls()).as("both legs at once").hasSize(2);
    decode = transport.calls().get(0);
    prefill = transport.calls().get(1);
    assertThat(decode.engine.getPort()).isEqualTo(8200);
  }

  List<Call> legs() {
    return List.of(decode, prefill);
  }

  private static EngineSpec engine(String iid, String url, EngineRole role) {
    return EngineSpec.of(iid, url, role).withDialect(SglangDialect.NAME)
        .withDialectOptions(Map.of("bootstrap_port", 8998));
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

  /** A client that expects no output and keeps its one error. */
  private final class Sink implements ClientSink {
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
