package narwhal.api;

/** A front-end's grip on a request it submitted. Call only from the request's scheduler. */
public interface RequestHandle {

  /** The router's id for this request (the {@code x-request-id} response header). */
  String requestId();

  /** The client went away: cancel engine legs, release everything, journal {@code cancelled}. */
  void cancel();

  /**
   * The front-end gave up on the response itself and answered the client with {@code error}
   * (e.g. a non-streaming response over {@code serving.max_response_bytes}): stop the engine
   * legs, release everything, journal {@code failed} with {@code reason}.
   *
   * @param reason the journal reason, e.g. {@code response_limit} or {@code invalid_response}
   */
  void abort(RouterError error, String reason);

  /** The client can take output again after {@link ClientSink#isWritable()} returned false. */
  void clientWritable();
}
