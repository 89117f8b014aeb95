package narwhal.core.legs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.testing.ManualScheduler;
import narwhal.spi.PrefillResult;
import narwhal.spi.EngineDialects;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.UnreadableHandoffException;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.testing.OpenAiWire;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.TestDialect;
import narwhal.testing.TestDialectWire;

/** One engine client on a scripted transport and a manual clock, for single-leg tests. */
final class LegFixture {

  static final EngineSpec P1 = TestDialect.engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL);
  static final EngineSpec D1 = TestDialect.engine("d1", "http://10.0.0.2:8200", EngineRole.DECODE);
  static final CompletionRequest COMPLETION = OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hi\",\"stream\":true}");
  static final CompletionRequest CHAT =
      OpenAiWire.chat("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}");

  final ManualScheduler loop = new ManualScheduler();
  final ScriptedTransport transport = new ScriptedTransport();
  private final AtomicInteger ids = new AtomicInteger();
  final EngineClient client =
      new EngineClient(transport, EngineDialects.of(new TestDialect()), () -> "b" + ids.incrementAndGet());
  final RecordingDecodeListener listener = new RecordingDecodeListener();

  static LegLimits decodeLimits(long firstTokenMillis, long readMillis) {
    return LegLimits.decode(Duration.ofMillis(firstTokenMillis), Duration.ofMillis(readMillis),
        ExchangeOptions.defaults());
  }

  /** A decode of COMPLETION on D1 with a valid crossed handoff: 2.5 s first token, 10 s silence. */
  DecodeCall decode() {
    return decode(decodeLimits(2500, 10_000));
  }

  DecodeCall decode(LegLimits limits) {
    return client.decode(D1, COMPLETION, handoff(Route.ROUTE_COMPLETIONS), limits, loop, listener);
  }

  /** A producer result from P1 holding the wire reference's parameters. */
  static PrefillResult handoff(Route route) {
    try {
      return handoff(new TestDialect().readPrefillAnswer(TestDialectWire.prefillResponse(TestDialectWire.PRODUCER_HANDOFF), P1.connector()).handoff(),
          route);
    } catch (UnreadableHandoffException e) {
      throw new AssertionError(e);
    }
  }

  static PrefillResult handoff(KvHandoffDescriptor descriptor, Route route) {
    narwhal.proto.v1.PrefillResult proto = narwhal.proto.v1.PrefillResult.newBuilder()
        .setHandoff(descriptor)
        .setProducerIid(P1.iid())
        .setProducerUrl(P1.url().toString())
        .setEndpoint(TestDialect.endpoint(route))
        .setBackendRequestId("b0")
        .setRoute(route)
        .build();
    return new PrefillResult(proto, new TestDialect().transferParametersJson(descriptor), 0, 0);
  }

  /** The {@link EngineFailure} a prefill call failed with (it must have failed). */
  static EngineFailure prefillFailure(CompletableFuture<PrefillResult> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.get();
      throw new AssertionError("no failure");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(EngineFailure.class);
      return (EngineFailure) e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
