package narwhal.core.trace;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import org.jspecify.annotations.Nullable;

/**
 * The router's tracing: an OpenTelemetry whose tracer makes the request and leg spans. {@link
 * #off()} (the default) is the API's no-op: nothing is recorded or exported and no thread runs,
 * but each request still carries a W3C trace context to its engines.
 */
public final class Tracing {

  private static final Tracing OFF = new Tracing(OpenTelemetry.noop(), false);
  static final String INSTRUMENTATION = "narwhal.router";

  private final OpenTelemetry openTelemetry;
  private final Tracer tracer;
  private final boolean enabled;

  private Tracing(OpenTelemetry openTelemetry, boolean enabled) {
    this.openTelemetry = openTelemetry;
    this.tracer = openTelemetry.getTracer(INSTRUMENTATION);
    this.enabled = enabled;
  }

  public static Tracing off() {
    return OFF;
  }

  /** Spans go to {@code openTelemetry}'s tracer provider (an SDK the caller built and closes). */
  public static Tracing with(OpenTelemetry openTelemetry) {
    return new Tracing(openTelemetry, true);
  }

  /** True when an OpenTelemetry SDK records spans; false for {@link #off()}. */
  public boolean enabled() {
    return enabled;
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  /**
   * Starts a request's span and trace context: a child of the client's {@code traceparent} when
   * that is valid (its {@code tracestate} then travels unchanged), else a new trace (and the
   * client's {@code tracestate}, which belongs to the invalid parent, is dropped).
   */
  public RequestTrace startRequest(String rid, String model, String route, @Nullable String traceparent,
      @Nullable String tracestate) {
    return RequestTrace.start(tracer, enabled, rid, model, route, traceparent, tracestate);
  }
}
