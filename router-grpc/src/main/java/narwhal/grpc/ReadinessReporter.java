package narwhal.grpc;

import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.util.concurrent.TimeUnit;
import narwhal.api.CompletionService;
import narwhal.time.Scheduler;
import narwhal.time.Timer;
import narwhal.grpc.v1.RouterGrpc;
import org.jspecify.annotations.Nullable;

/**
 * Keeps {@code grpc.health.v1.Health} in step with {@link CompletionService#ready()}: SERVING for
 * the server ({@code ""}) and {@code narwhal.v1.Router} only while the router admits work,
 * NOT_SERVING otherwise (as HTTP's {@code /ready}). Readiness is polled on {@code scheduler}, so a
 * change reaches watchers within one period; only changes are published.
 */
final class ReadinessReporter implements AutoCloseable {

  static final String ROUTER_SERVICE = RouterGrpc.SERVICE_NAME;

  private final CompletionService service;
  private final HealthStatusManager health;
  private final Scheduler scheduler;
  private final long periodNanos;
  private volatile boolean closed;
  private @Nullable Boolean published;
  private Timer next = Timer.NONE;

  ReadinessReporter(CompletionService service, HealthStatusManager health, Scheduler scheduler, long periodNanos) {
    this.service = service;
    this.health = health;
    this.scheduler = scheduler;
    this.periodNanos = periodNanos;
  }

  /**
   * Publishes the current readiness now (the manager starts with {@code ""} SERVING, which must
   * not be seen before the router is ready) and then every period.
   */
  void start() {
    publish(service.ready());
    scheduler.execute(this::armNext);
  }

  private void poll() {
    publish(service.ready());
    armNext();
  }

  /** Runs on the scheduler, as does every access to {@code next}. */
  private void armNext() {
    if (!closed) {
      next = scheduler.schedule(this::poll, periodNanos, TimeUnit.NANOSECONDS);
    }
  }

  private synchronized void publish(boolean ready) {
    if (closed || (published != null && published == ready)) {
      return;
    }
    published = ready;
    ServingStatus status = ready ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
    health.setStatus(ROUTER_SERVICE, status);
  }

  /** Stops polling; every service reads NOT_SERVING from now on (the server is going away). */
  @Override
  public void close() {
    closed = true;
    scheduler.execute(() -> next.cancel());
    synchronized (this) {
      health.enterTerminalState();
    }
  }
}
