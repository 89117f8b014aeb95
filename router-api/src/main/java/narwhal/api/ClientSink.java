package narwhal.api;

import narwhal.proto.v1.StreamEvent;

/**
 * Where the core delivers one request's outcome; implemented by each front-end (HTTP/SSE, gRPC).
 *
 * <p>All calls arrive on the request's {@link narwhal.time.Scheduler}. The sequence is either
 * {@code onError} alone (nothing was visible yet: answer with a plain error), or {@code onStart},
 * then {@code onEvent}s, then exactly one of {@code onComplete} or {@code onError} (a failure after
 * output was committed: end the stream with one terminal error event).
 */
public interface ClientSink {

  /**
   * The first generated token arrived: commit the response (status 200 and headers). Metadata
   * chunks the engine sent before the first token (e.g. the chat role chunk) follow as events.
   */
  void onStart(ResponseStart start);

  /** A {@code token} or {@code metadata} event, in engine order. */
  void onEvent(StreamEvent event);

  /** The engine stream ended properly with {@code [DONE]}. */
  void onComplete();

  /** The request failed; see the class comment for what to send. Terminal. */
  void onError(RouterError error);

  /**
   * False when the client cannot take more output right now. The core then stops reading from the
   * engine until the front-end calls {@link RequestHandle#clientWritable()}.
   */
  boolean isWritable();
}
