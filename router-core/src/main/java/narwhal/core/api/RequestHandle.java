package narwhal.core.api;

/** A front-end's grip on a request it submitted. Call only from the request's scheduler. */
public interface RequestHandle {

  /** The router's id for this request (the {@code x-request-id} response header). */
  String requestId();

  /** The client went away: cancel engine legs, release everything, journal {@code cancelled}. */
  void cancel();

  /** The client can take output again after {@link ClientSink#isWritable()} returned false. */
  void clientWritable();
}
