package narwhal.engines.client;

/** A running decode leg. Call from the leg's scheduler only. */
public interface DecodeCall {

  /** The fresh backend request id this leg was sent with. */
  String backendRequestId();

  /** Abandons the leg: the engine connection closes and no listener call follows. Idempotent. */
  void cancel();

  /** Stops reading from the engine (the client is slow). The silence timer is suspended meanwhile. */
  void pause();

  /** Resumes reading after {@link #pause()}. */
  void resume();
}
