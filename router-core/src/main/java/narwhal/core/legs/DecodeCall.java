package narwhal.core.legs;

/** A running decode leg. Call from the leg's scheduler only. */
public interface DecodeCall {

  /** The fresh backend request id this leg was sent with. */
  String backendRequestId();

  /**
   * True once the engine has accepted the leg: it answered with a 200 event-stream head. A leg
   * that times out before that never got past the engine's door; one that times out after it had
   * an engine up and waiting (in a concurrent handoff, for the producer's KV cache).
   */
  boolean accepted();

  /** Abandons the leg: the engine connection closes and no listener call follows. Idempotent. */
  void cancel();

  /** Stops reading from the engine (the client is slow). The silence timer is suspended meanwhile. */
  void pause();

  /** Resumes reading after {@link #pause()}. */
  void resume();
}
