package narwhal.core.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One request's trace: its span (a no-op without an SDK), the trace context its legs continue and
 * the client's {@code tracestate}. Made and ended on the request's loop; {@link #end} is
 * idempotent, so the one way out of a request ends it exactly once.
 */
public final class RequestTrace {

  static final AttributeKey<String> RID = AttributeKey.stringKey("narwhal.rid");
  static final AttributeKey<String> MODEL = AttributeKey.stringKey("narwhal.model");
  static final AttributeKey<String> ROUTE = AttributeKey.stringKey("narwhal.route");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("narwhal.outcome");
  static final AttributeKey<String> REASON = AttributeKey.stringKey("narwhal.reason");
  static final AttributeKey<Long> STATUS = AttributeKey.longKey("http.response.status_code");
  /** W3C's recommended bound: a longer tracestate may be dropped. */
  private static final int MAX_TRACESTATE = 512;

  private final Tracer tracer;
  private final Span span;
  private final TraceParent context;
  private final String tracestate;
  private boolean ended;

  private RequestTrace(Tracer tracer, Span span, TraceParent context, String tracestate) {
    this.tracer = tracer;
    this.span = span;
    this.context = context;
    this.tracestate = tracestate;
  }

  static RequestTrace start(Tracer tracer, boolean enabled, String rid, String model, String route,
      @Nullable String traceparent, @Nullable String tracestate) {
    TraceParent client = TraceParent.parse(traceparent);
    String state = client == null ? "" : usable(tracestate);
    Context parent = Context.root();
    if (client != null && enabled) {
      // The propagator reads tracestate into the parent too, so exported spans keep the vendor's state.
      parent = W3CTraceContextPropagator.getInstance().extract(
          Context.root(), Map.of("traceparent", client.header(), "tracestate", state), MapGetter.INSTANCE);
    }
    Span span = tracer.spanBuilder("narwhal.request")
        .setParent(parent)
        .setSpanKind(SpanKind.SERVER)
        .setAttribute(RID, rid)
        .setAttribute(MODEL, model)
        .setAttribute(ROUTE, route)
        .startSpan();
    TraceParent own = fromSpan(span);
    TraceParent context = own != null ? own : client != null ? client : TraceParent.start();
    return new RequestTrace(tracer, span, context, state);
  }

  /** The trace id the request's legs carry (the journal's {@code trace_id}). */
  public String traceId() {
    return context.traceId();
  }

  /** The tracestate sent on every leg, or "" for none. */
  public String tracestate() {
    return tracestate;
  }

  /**
   * Starts a leg's span, a child of the request's. Its {@code traceparent} names the leg's span as
   * the parent (without an SDK, a fresh span id in the request's trace).
   */
  public LegTrace leg(String phase, String iid, int attempt, String backendId) {
    Span leg = tracer.spanBuilder("narwhal." + phase)
        .setParent(Context.root().with(span))
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(LegTrace.IID, iid)
        .setAttribute(LegTrace.PHASE, phase)
        .setAttribute(LegTrace.ATTEMPT, (long) attempt)
        .setAttribute(LegTrace.BACKEND_ID, backendId)
        .startSpan();
    TraceParent own = fromSpan(leg);
    TraceParent sent = own != null ? own : context.withParent(TraceParent.randomSpanId());
    return new LegTrace(backendId, leg, sent, tracestate);
  }

  /** Ends the request's span with its journal terminal, reason and status. Runs once. */
  public void end(String terminal, @Nullable String reason, @Nullable Integer status, boolean failed) {
    if (ended) {
      return;
    }
    ended = true;
    span.setAttribute(OUTCOME, terminal);
    if (reason != null) {
      span.setAttribute(REASON, reason);
    }
    if (status != null) {
      span.setAttribute(STATUS, (long) status);
    }
    if (failed) {
      span.setStatus(StatusCode.ERROR, reason == null ? terminal : reason);
    }
    span.end();
  }

  private static @Nullable TraceParent fromSpan(Span span) {
    SpanContext sc = span.getSpanContext();
    return sc.isValid() ? new TraceParent(sc.getTraceId(), sc.getSpanId(), sc.getTraceFlags().asHex()) : null;
  }

  /**
   * The client's tracestate if it can be sent on as is: printable ASCII within W3C's bound (the
   * value goes into engine request headers verbatim); else none.
   */
  private static String usable(@Nullable String tracestate) {
    if (tracestate == null || tracestate.length() > MAX_TRACESTATE) {
      return "";
    }
    for (int i = 0; i < tracestate.length(); i++) {
      char c = tracestate.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return "";
      }
    }
    return tracestate;
  }

  private enum MapGetter implements TextMapGetter<Map<String, String>> {
    INSTANCE;

    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  }
}
