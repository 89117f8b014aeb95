package narwhal.core.request;

import java.time.Clock;
import java.util.UUID;
import java.util.random.RandomGenerator;
import narwhal.config.FleetConfig;
import narwhal.core.api.ClientSink;
import narwhal.core.api.CompletionService;
import narwhal.core.api.RequestHandle;
import narwhal.core.fleet.Fleet;
import narwhal.core.journal.Journal;
import narwhal.core.retry.Backoff;
import narwhal.core.retry.RetryBudget;
import narwhal.core.time.Scheduler;
import narwhal.engines.client.EngineClient;
import narwhal.proto.v1.CompletionRequest;

/**
 * The router: splits each request into a prefill leg and a decode leg across the fleet. Each
 * submitted request becomes a {@link RequestLifecycle} on the caller's scheduler; this class only
 * holds what they share.
 */
public final class DisaggregatedRouter implements CompletionService {

  private final RouterRuntime rt;

  public DisaggregatedRouter(
      FleetConfig config, Fleet fleet, EngineClient engines, Journal journal, Clock wallClock,
      RandomGenerator random) {
    RequestSettings settings = RequestSettings.from(config);
    this.rt = new RouterRuntime(
        settings,
        fleet,
        engines,
        journal,
        new RetryBudget(config.serving().retryBudget(), config.serving().retryReplenish()),
        new Backoff(settings.retryBaseNanos(), settings.retryCapNanos(), random),
        wallClock);
  }

  @Override
  public RequestHandle submit(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos) {
    String rid = UUID.randomUUID().toString().replace("-", "");
    RequestLifecycle lifecycle = new RequestLifecycle(rt, request, sink, loop, arrivalNanos, rid);
    // Always a separate task: the front-end holds the handle before any sink callback can arrive.
    loop.execute(lifecycle::start);
    return lifecycle;
  }

  @Override
  public String model() {
    return rt.settings().model();
  }

  @Override
  public boolean ready() {
    return rt.fleet().coversBothPhases();
  }

  public Fleet fleet() {
    return rt.fleet();
  }

  public RetryBudget retryBudget() {
    return rt.retryBudget();
  }
}
