package narwhal.core.request;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import narwhal.core.health.EngineHealthTracker;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.ServingConfig;
import narwhal.api.RequestHandle;
import narwhal.core.fleet.Fleet;
import narwhal.testing.ManualScheduler;
import narwhal.core.legs.EngineClient;
import narwhal.core.metrics.RouterMetrics;
import narwhal.core.metrics.Telemetry;
import narwhal.core.trace.Tracing;
import narwhal.spi.EngineDialects;
import narwhal.proto.v1.CompletionRequest;
import narwhal.testing.OpenAiWire;
import narwhal.testing.RecordingSink;
import narwhal.testing.ScriptedTransport.Call;
import narwhal.testing.ScriptedTransport;
import narwhal.testing.TestDialect;
import narwhal.testing.TestDialectWire;

/**
 * A whole router on a scripted transport and a manual clock: the test plays every engine. A
 * request's legs carry backend ids derived from its rid ({@code <rid>-p1}, {@code <rid>-d1}, ...);
 * legs outside a request (probes) get "b1", "b2", ... in the order they start.
 */
final class RouterFixture {

  static final long SEED = 20240611L;
  static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

  final ManualScheduler loop = new ManualScheduler();
  final ScriptedTransport transport = new ScriptedTransport();
  final CapturingJournal journal = new CapturingJournal();
  final FleetConfig config;
  final Fleet fleet;
  final DisaggregatedRouter router;
  private int backendIds;

  RouterFixture(FleetConfig config) {
    this(config, EngineDialects.of(new TestDialect()));
  }

  /** A router speaking {@code dialects} (the engines' {@code dialect} names pick among them). */
  RouterFixture(FleetConfig config, EngineDialects dialects) {
    this(config, dialects, fleet -> EngineHealthTracker.NONE);
  }

  /** A router whose requests report to the tracker {@code health} builds over the fixture's fleet. */
  RouterFixture(FleetConfig config, Function<Fleet, EngineHealthTracker> health) {
    this(config, EngineDialects.of(new TestDialect()), health);
  }

  /** A router whose request and leg spans go through {@code tracing}. */
  RouterFixture(FleetConfig config, Tracing tracing) {
    this(config, EngineDialects.of(new TestDialect()), fleet -> EngineHealthTracker.NONE, tracing);
  }

  private RouterFixture(FleetConfig config, EngineDialects dialects, Function<Fleet, EngineHealthTracker> health) {
    this(config, dialects, health, Tracing.off());
  }

  private RouterFixture(FleetConfig config, EngineDialects dialects, Function<Fleet, EngineHealthTracker> health,
      Tracing tracing) {
    this.config = config;
    this.fleet = new Fleet(config.engines());
    EngineClient engines = new EngineClient(transport, dialects, () -> "b" + (++backendIds));
    Telemetry telemetry = Telemetry.create();
    this.router = new DisaggregatedRouter(config, fleet, engines, journal, Clock.fixed(NOW, ZoneOffset.UTC),
        new SplittableRandom(SEED), health.apply(fleet), telemetry,
        new RouterMetrics(telemetry.registry(), config.slo()), tracing);
  }

  /** Two prefill engines (p1, p2) and two decode engines (d1, d2). */
  static FleetConfig twoByTwo() {
    return FleetConfig.of("m", List.of(
        TestDialect.engine("p1", "http://10.0.0.1:8100", EngineRole.PREFILL),
        TestDialect.engine("p2", "http://10.0.0.2:8100", EngineRole.PREFILL),
        TestDialect.engine("d1", "http://10.0.0.3:8200", EngineRole.DECODE),
        TestDialect.engine("d2", "http://10.0.0.4:8200", EngineRole.DECODE)));
  }

  static FleetConfig twoByTwo(UnaryOperator<ServingConfig> serving) {
    FleetConfig c = twoByTwo();
    return c.withServing(serving.apply(c.serving()));
  }

  /** A submitted request and its client. */
  record Client(RequestHandle handle, RecordingSink sink) {}

  /** A request arriving now over {@code frontEnd}, anonymous, with no deadline of its own. */
  narwhal.api.Arrival arrival(narwhal.api.FrontEnd frontEnd) {
    return narwhal.api.Arrival.now(loop, frontEnd, narwhal.api.Caller.ANONYMOUS, null, null,
        narwhal.api.TraceContext.NONE);
  }

  /** Admits and submits {@code request}, arriving now over HTTP, as a front-end does. */
  Client submit(CompletionRequest request) {
    return submit(arrival(narwhal.api.FrontEnd.HTTP), request);
  }

  /** As {@link #submit(CompletionRequest)}, for {@code arrival}. */
  Client submit(narwhal.api.Arrival arrival, CompletionRequest request) {
    RecordingSink sink = new RecordingSink();
    RequestHandle handle = router.submit(router.admit(arrival), request, sink);
    loop.runPending();
    return new Client(handle, sink);
  }

  CompletionRequest completionRequest() {
    return OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":8,\"stream\":true}");
  }

  Client submitCompletion() {
    return submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":8,\"stream\":true}"));
  }

  Call call(int index) {
    return transport.calls().get(index);
  }

  /** The iid of the engine an exchange went to. */
  String iidOf(Call call) {
    return config.engines().stream().filter(e -> e.url().equals(call.engine)).findFirst()
        .orElseThrow().iid();
  }

  static String backendId(Call call) {
    return call.request.headers().get("X-Request-Id");
  }

  /** The producer answers its prefill with a descriptor naming its own engine id. */
  void prefillOk(Call call) {
    call.respond(200, TestDialectWire.prefillResponseFrom("engine-" + iidOf(call)));
  }

  Map<String, Object> row() {
    return journal.row();
  }

  int residentPrefill() {
    return fleet.totalResidentPrefill();
  }

  int residentDecode() {
    return fleet.totalResidentDecode();
  }
}
