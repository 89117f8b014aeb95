package narwhal.adapters.kit;

import narwhal.api.Arrival;
import narwhal.api.Caller;
import narwhal.api.FrontEnd;
import narwhal.api.TraceContext;
import narwhal.testing.Poll;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import narwhal.config.EngineConfig;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.api.RequestHandle;
import narwhal.core.checks.CheckResult;
import narwhal.core.checks.EngineChecks;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.fleet.Fleet;
import narwhal.core.request.DisaggregatedRouter;
import narwhal.time.Scheduler;
import narwhal.netty.EventLoopScheduler;
import narwhal.core.legs.EngineClient;
import narwhal.core.legs.EngineFailure;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.HandoffStyle;
import narwhal.proto.v1.CompletionRequest;
import org.junit.jupiter.api.Assumptions;

/**
 * One check's world: a producer and a consumer engine from the adapter, and the real router core
 * in front of them (fleet, {@link DisaggregatedRouter}, {@link EngineChecks}) on a Netty event
 * loop over the real transport, with every exchange, leg failure and journal row recorded.
 *
 * <p>{@link #close()} is the resource check every test ends with: nothing left running on either
 * side, no reservation held, no transport contract broken, and no connection left open once the
 * engines are gone.
 */
final class ConformanceRig implements AutoCloseable {

  final AdapterUnderTest adapter;
  final EngineDialect dialect;
  final KitTimeouts timeouts;
  final EnginePair pair;
  final EngineSpec producer;
  final EngineSpec consumer;
  final FleetConfig config;
  final RecordingTransport transport;
  final RecordingHealth health = new RecordingHealth();
  final RecordingJournal journal = new RecordingJournal();
  final Fleet fleet;
  final DisaggregatedRouter router;
  final EngineChecks checks;
  private final EngineClient client;
  private final EngineTransport shared;
  private final EventLoopScheduler loop;
  private boolean closed;

  private ConformanceRig(AdapterUnderTest adapter, EngineTransport shared, EventLoopScheduler loop, EnginePair pair,
      UnaryOperator<EngineSpec> producerTweak, UnaryOperator<EngineSpec> consumerTweak,
      UnaryOperator<FleetConfig> configTweak) {
    this.adapter = adapter;
    this.dialect = adapter.dialect();
    this.timeouts = adapter.timeouts();
    this.shared = shared;
    this.loop = loop;
    this.pair = pair;
    this.producer = producerTweak.apply(pair.producer().spec().withRole(EngineRole.PREFILL));
    this.consumer = consumerTweak.apply(pair.consumer().spec().withRole(EngineRole.DECODE));
    this.config = configTweak.apply(fleetConfig(adapter, producer, consumer));
    this.transport = new RecordingTransport(shared);
    EngineDialects dialects = EngineDialects.of(dialect);
    this.client = new EngineClient(transport, dialects);
    this.fleet = new Fleet(config.engines());
    this.router = new DisaggregatedRouter(config, fleet, client, journal, Clock.systemUTC(),
        new SplittableRandom(8), health);
    this.checks = new EngineChecks(config, transport, dialects, client);
  }

  static ConformanceRig start(AdapterUnderTest adapter, EngineTransport shared, EventLoopScheduler loop, List<Fault> faults,
      UnaryOperator<EngineSpec> producerTweak, UnaryOperator<EngineSpec> consumerTweak,
      UnaryOperator<FleetConfig> configTweak) throws Exception {
    EnginePair pair;
    try {
      pair = adapter.start(faults);
    } catch (UnsupportedOperationException e) {
      Assumptions.abort("the engine cannot inject " + faults + ": " + e.getMessage());
      throw e;
    }
    try {
      return new ConformanceRig(adapter, shared, loop, pair, producerTweak, consumerTweak, configTweak);
    } catch (RuntimeException e) {
      pair.close();
      throw e;
    }
  }

  private static FleetConfig fleetConfig(AdapterUnderTest adapter, EngineSpec producer, EngineSpec consumer) {
    KitTimeouts t = adapter.timeouts();
    FleetConfig c = FleetConfig.of(adapter.model(), List.of(producer, consumer));
    EngineConfig engine = c.engine()
        .withDialect(adapter.dialect().name())
        .withFirstTokenTimeoutS(seconds(t.firstToken()))
        .withDecodeReadTimeoutS(seconds(t.decodeRead()))
        .withHealthTimeoutS(seconds(t.health()))
        .withConnectTimeoutS(seconds(t.health()));
    return c.withEngine(engine).withServing(c.serving().withPrefillTimeoutS(seconds(t.prefill())));
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  /**
   * Gives the producer a profile fast enough that predictive admission (the default) prices and
   * admits every kit request: what makes the router count a prompt before its prefill.
   */
  void profileProducer() {
    router.profiles().put(new EngineProfile(producer.iid(), null, new PrefillModel(0, 1e-6, 0, 1, 1_000_000),
        new DecodeModel(1e-3, 0, 0, 1_000_000, 256), 1e-3, 1e-3));
  }

  boolean concurrent() {
    return dialect.handoffStyle() == HandoffStyle.CONCURRENT;
  }

  // ---- requests ----

  /** A running request and its client. */
  record Running(RequestHandle handle, ContractCheckingSink sink) {}

  Running submit(CompletionRequest request) {
    ContractCheckingSink sink = new ContractCheckingSink();
    RequestHandle handle = onLoop(() -> router.submit(router.admit(Arrival.now(loop, FrontEnd.HTTP, Caller.ANONYMOUS,
        null, null, TraceContext.NONE)), request, sink));
    return new Running(handle, sink);
  }

  /** Runs {@code request} to its end and returns what the client saw. */
  ClientOutcome run(CompletionRequest request) {
    return await(submit(request));
  }

  ClientOutcome await(Running running) {
    try {
      running.sink().terminal.get(timeouts.settle().toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the request did not end within " + timeouts.settle().toMillis()
          + " ms; the client saw " + running.sink().outcome().log() + "; exchanges " + transport.all());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    ClientOutcome o = running.sink().outcome();
    assertThat(o.sinkViolations()).as("ClientSink call order").isEmpty();
    return o;
  }

  /** The client goes away (from the request's loop, as a front-end does). */
  void cancel(Running running) {
    onLoop(() -> {
      running.handle().cancel();
      return null;
    });
  }

  void awaitTokens(Running running, int n) {
    Poll.until(timeouts.settle(), () -> running.sink().tokenCount() >= n,
        () -> "the client to see " + n + " tokens; it saw " + running.sink().outcome().log());
  }

  CheckResult check(BiFunction<EngineChecks, Scheduler, CompletableFuture<CheckResult>> check) {
    try {
      return check.apply(checks, loop).get(timeouts.settle().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("the check did not finish within " + timeouts.settle().toMillis() + " ms", e);
    }
  }

  // ---- what the engines were sent ----

  /** The inference legs sent to {@code engine} (health, model-list and prompt-count requests left out). */
  List<RecordedExchange> legsTo(EngineSpec engine) {
    EngineHttpRequest health = dialect.healthRequest();
    EngineHttpRequest models = dialect.modelsRequest();
    return transport.to(engine).stream()
        .filter(e -> !same(e.request(), health) && !same(e.request(), models) && !isCount(e.request()))
        .toList();
  }

  /** True when {@code request} is the dialect's prompt count (its tokenize route), not a leg. */
  boolean isCount(EngineHttpRequest request) {
    for (CompletionRequest shape : List.of(
        KitRequests.completion(adapter.model(), KitRequests.PROMPT, 1, false),
        KitRequests.chat(adapter.model(), KitRequests.PROMPT, 1, false))) {
      EngineHttpRequest count = dialect.tokenizeRequest(shape, "kit-count");
      if (count != null && same(request, count)) {
        return true;
      }
    }
    return false;
  }

  /** {@code engine}'s exact count of {@code request}'s prompt through the dialect's tokenize route. */
  long count(EngineSpec engine, CompletionRequest request) {
    CompletableFuture<Long> count = onLoop(() -> client.countPrompt(engine, request,
        timeouts.settle().toNanos(), narwhal.spi.ExchangeOptions.defaults(), loop, "kit-count"));
    assertThat(count).as("%s counts this prompt", dialect.name()).isNotNull();
    try {
      return count.get(timeouts.settle().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("the prompt count did not succeed: " + e, e);
    }
  }

  private static boolean same(EngineHttpRequest a, EngineHttpRequest b) {
    return a.method().equals(b.method()) && a.path().equals(b.path());
  }

  List<EngineFailure> failures() {
    return health.failures();
  }

  // ---- settling and cleanup ----

  /** Waits until nothing runs on either side and no reservation is held. */
  void awaitQuiet() {
    Poll.until(timeouts.settle(), () -> quietProblems().isEmpty(), () -> "quiet: " + quietProblems());
  }

  private List<String> quietProblems() {
    List<String> problems = new ArrayList<>();
    if (transport.running() > 0) {
      problems.add(transport.running() + " exchange(s) still running: " + transport.all());
    }
    if (pair.producer().inFlight() > 0) {
      problems.add("the producer still works on " + pair.producer().inFlight() + " request(s)");
    }
    if (pair.consumer().inFlight() > 0) {
      problems.add("the consumer still works on " + pair.consumer().inFlight() + " request(s)");
    }
    int resident = onLoop(() -> fleet.totalResidentPrefill() + fleet.totalResidentDecode());
    if (resident > 0) {
      problems.add(resident + " reservation(s) still held");
    }
    return problems;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      awaitQuiet();
      assertThat(transport.contractViolations()).as("EngineTransport callbacks after an exchange ended").isEmpty();
    } finally {
      pair.close();
    }
    Poll.until(timeouts.settle(), () -> shared.openConnections() == 0,
        () -> "every engine connection closed once the engines stopped; open: " + shared.openConnections());
  }

  <T> T onLoop(Supplier<T> task) {
    try {
      return CompletableFuture.supplyAsync(task, loop).get(timeouts.settle().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("the router's loop did not run a task", e);
    }
  }
}
