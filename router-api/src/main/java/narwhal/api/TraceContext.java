package narwhal.api;

import narwhal.proto.v1.CompletionRequest;

/**
 * The client's W3C trace context as it arrived with the request (HTTP headers, gRPC metadata),
 * unvalidated: a repeated header's values joined with "," as HTTP joins them, so two traceparents
 * read as one invalid value, as W3C asks. The core validates it and decides which context the
 * request carries.
 *
 * @param traceparent the {@code traceparent} value, or ""
 * @param tracestate the {@code tracestate} value, or ""
 */
public record TraceContext(String traceparent, String tracestate) {

  /** No trace context came with the request. */
  public static final TraceContext NONE = new TraceContext("", "");

  public TraceContext {
    traceparent = traceparent == null ? "" : traceparent;
    tracestate = tracestate == null ? "" : tracestate;
  }

  /** The values of a repeated header or metadata key, joined as HTTP joins them; "" for none. */
  public static String joined(Iterable<String> values) {
    return values == null ? "" : String.join(",", values);
  }

  /** True when the client sent a {@code traceparent}. */
  public boolean isPresent() {
    return !traceparent.isEmpty();
  }

  /**
   * {@code request} carrying the trace context it runs under: this one when the client sent it
   * with the request's headers or metadata, else the request message's own fields (a gRPC message
   * may carry them; an OpenAI body never does).
   */
  public CompletionRequest applyTo(CompletionRequest request) {
    if (!isPresent()) {
      return request;
    }
    return request.toBuilder().setTraceparent(traceparent).setTracestate(tracestate).build();
  }
}
