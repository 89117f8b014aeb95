package narwhal.core.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.config.EngineContract;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.testing.ManualScheduler;
import narwhal.core.legs.EngineClient;
import narwhal.spi.EngineDialects;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.TestDialect;
import narwhal.testing.TestDialectWire;
import org.jspecify.annotations.Nullable;

/** Engine checks on a scripted transport and a manual clock: the test plays every engine. */
public final class ChecksFixture {

  static final EngineSpec P1 = TestDialect.engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL);
  public static final EngineSpec D1 = TestDialect.engine("d1", "http://10.0.0.2:8200", EngineRole.DECODE);
  static final EngineSpec B1 = TestDialect.engine("b1", "http://10.0.0.3:8300", EngineRole.BOTH);

  /** engine.first_token_timeout_s 2.5 s and engine.health_timeout_s 5 s: the defaults. */
  public static final FleetConfig FLEET = FleetConfig.of("m", List.of(P1, D1, B1));

  final ManualScheduler loop = new ManualScheduler();
  final ScriptedTransport transport = new ScriptedTransport();
  final EngineChecks checks;

  ChecksFixture() {
    this(null);
  }

  ChecksFixture(@Nullable EngineContract contract) {
    AtomicInteger ids = new AtomicInteger();
    EngineDialects dialects = EngineDialects.of(new TestDialect());
    EngineClient client = new EngineClient(transport, dialects, () -> "b" + ids.incrementAndGet());
    checks = new EngineChecks(FLEET.withEngineContract(contract), transport, dialects, client);
  }

  public static EngineSpec attested(EngineSpec engine, String url) {
    return engine.withAttestationUrl(URI.create(url));
  }

  /** The result of a check that must have finished by now. */
  public static CheckResult done(CompletableFuture<CheckResult> future) {
    assertThat(future).as("check finished").isDone();
    return future.getNow(null);
  }

  Call call(int index) {
    assertThat(transport.calls()).as("exchanges opened").hasSizeGreaterThan(index);
    return transport.calls().get(index);
  }

  /** Answers a prefill leg as a producer speaking the test dialect does. */
  static void answerPrefill(Call call, String engineId) {
    call.respond(200, TestDialectWire.prefillResponseFrom(engineId));
  }

  /** Answers a decode leg with two tokens and [DONE]. */
  static void answerDecode(Call call) {
    call.sse().event(OpenAiWire.completionToken(" a")).event(OpenAiWire.completionFinish(" b", "length")).event("[DONE]").end();
  }

  static final String MODELS = "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\",\"created\":1,"
      + "\"owned_by\":\"vllm\",\"root\":\"/models/m\",\"parent\":null,\"max_model_len\":4096,\"permission\":[]},"
      + "{\"id\":\"m-lora\",\"object\":\"model\",\"created\":1,\"owned_by\":\"vllm\",\"root\":\"/lora\","
      + "\"parent\":\"m\",\"max_model_len\":4096,\"permission\":[]}]}";
}
