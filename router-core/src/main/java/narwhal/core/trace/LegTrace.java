package narwhal.core.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.util.HashMap;
import java.util.Map;
import narwhal.spi.EngineHttpRequest;
import org.jspecify.annotations.Nullable;

/**
 * What identifies one engine leg: its backend request id, the trace context it sends ({@code
 * traceparent}, {@code tracestate}) and its span. The leg ends the span once, whichever way it
 * ends; later calls are ignored. Confined to the leg's loop.
 */
public final class LegTrace {

  static final AttributeKey<String> IID = AttributeKey.stringKey("narwhal.engine.iid");
  static final AttributeKey<String> PHASE = AttributeKey.stringKey("narwhal.phase");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("narwhal.attempt");
  static final AttributeKey<String> BACKEND_ID = AttributeKey.stringKey("narwhal.backend_id");

  private final String backendId;
  private final Span span;
  private final @Nullable TraceParent traceparent;
  private final String tracestate;
  private boolean ended;

  LegTrace(String backendId, Span span, @Nullable TraceParent traceparent, String tracestate) {
    this.backendId = backendId;
    this.span = span;
    this.traceparent = traceparent;
    this.tracestate = tracestate;
  }

  /** A leg outside any request (a probe): its id only, no trace headers, no span. */
  public static LegTrace untraced(String backendId) {
    return new LegTrace(backendId, Span.getInvalid(), null, "");
  }

  public String backendId() {
    return backendId;
  }

  /** The {@code traceparent} this leg sends, or null for an untraced leg. */
  public @Nullable String traceparent() {
    return traceparent == null ? null : traceparent.header();
  }

  /** {@code request} as the dialect built it, plus this leg's trace headers. */
  public EngineHttpRequest onto(EngineHttpRequest request) {
    if (traceparent == null) {
      return request;
    }
    Map<String, String> headers = new HashMap<>(request.headers());
    headers.put("traceparent", traceparent.header());
    if (!tracestate.isEmpty()) {
      headers.put("tracestate", tracestate);
    }
    return new EngineHttpRequest(request.method(), request.path(), headers, request.body());
  }

  /** The engine answered (prefill) or finished its stream (decode). */
  public void succeeded(int status) {
    end(status, null, false);
  }

  /** The leg failed: {@code status} is the engine's HTTP status, 0 when none arrived. */
  public void failed(int status, String reason) {
    end(status, reason, true);
  }

  /** The request stopped the leg (its sibling failed, the client went, the deadline passed). */
  public void cancelled(int status) {
    end(status, "cancelled", false);
  }

  private void end(int status, @Nullable String reason, boolean error) {
    if (ended) {
      return;
    }
    ended = true;
    if (status > 0) {
      span.setAttribute(RequestTrace.STATUS, (long) status);
    }
    if (reason != null) {
      span.setAttribute(RequestTrace.REASON, reason);
    }
    if (error) {
      span.setStatus(StatusCode.ERROR, reason);
    }
    span.end();
  }
}
