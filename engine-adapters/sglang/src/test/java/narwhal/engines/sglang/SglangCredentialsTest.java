package narwhal.engines.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import narwhal.config.EngineApiKey;
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
import narwhal.engines.client.AuthorizingTransport;
import narwhal.engines.client.EngineClient;
import narwhal.engines.client.EngineFailure;
import narwhal.engines.client.FailureClass;
import narwhal.engines.spi.EngineDialects;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.ScriptedTransport.Call;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The router's engine key on SGLang's concurrent legs, and a decode refusing it. */
class SglangCredentialsTest {

  private static final String STREAM = "{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":4,\"stream\":true}";

  private final ManualScheduler loop = new ManualScheduler();
  private final ScriptedTransport transport = new ScriptedTransport();
  private final List<EngineFailure> blamed = new ArrayList<>();
  private @Nullable RouterError error;

  private List<Call> submit(EngineApiKey key) {
    FleetConfig config = FleetConfig.of("m", List.of(
        engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        engine("d1", "http://10.0.0.3:8200", EngineRole.DECODE)));
    config = config.withEngine(config.engine().withDialect(SglangDialect.NAME));
    EngineClient engines =
        new EngineClient(AuthorizingTransport.wrap(transport, key), EngineDialects.of(new SglangDialect()));
    DisaggregatedRouter router = new DisaggregatedRouter(config, new Fleet(config.engines()), engines,
        Journal.none(), Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC),
        new SplittableRandom(3), new Breaker());
    router.submit(Wire.completions(STREAM), new Sink(), loop, loop.nanoTime());
    loop.runPending();
    assertThat(transport.calls()).as("both legs at once").hasSize(2);
    return transport.calls();
  }

  private static EngineSpec engine(String iid, String url, EngineRole role) {
    return EngineSpec.of(iid, url, role).withDialect(SglangDialect.NAME)
        .withDialectOptions(Map.of("bootstrap_port", 8998));
  }

  @Test
  void bothLegs_carryTheKey() {
    List<Call> legs = submit(EngineApiKey.of("sk-sglang"));

    assertThat(legs).allSatisfy(call ->
        assertThat(call.request.headers()).containsEntry("Authorization", "Bearer sk-sglang"));
    legs.forEach(Call::cancel);
  }

  @Test
  void withoutAKey_neitherLegCarriesOne() {
    List<Call> legs = submit(EngineApiKey.none());

    assertThat(legs).allSatisfy(call -> assertThat(call.request.headers()).doesNotContainKey("Authorization"));
    legs.forEach(Call::cancel);
  }

  @Test
  void decode401_isA502BlamedOnTheDecodeEngine() {
    List<Call> legs = submit(EngineApiKey.of("sk-stale"));
    Call decode = legs.get(0).engine.getPort() == 8200 ? legs.get(0) : legs.get(1);

    decode.respond(401, "{\"error\":\"Unauthorized\"}");

    assertThat(error).isNotNull();
    assertThat(error.status()).isEqualTo(502);
    assertThat(error.type()).isEqualTo("decode");
    assertThat(error.message()).startsWith("decode engine d1 refused the router's credentials (HTTP 401)")
        .contains("engine.engine_api_key_env");
    assertThat(blamed).singleElement().satisfies(f -> {
      assertThat(f.engineIid()).isEqualTo("d1");
      assertThat(f.failureClass()).isEqualTo(FailureClass.INFERENCE_STATUS);
    });
  }

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
