package narwhal.core.legs;

import narwhal.proto.v1.StreamEvent;

/**
 * Receives one decode leg's outcome, on the leg's scheduler: {@code onEvent} for each token or
 * metadata chunk, then exactly one of {@code onComplete} or {@code onFailure}.
 */
public interface DecodeListener {

  /** A {@code token} (generated output) or {@code metadata} event. */
  void onEvent(StreamEvent event);

  /** The stream ended with {@code [DONE]} after at least one generated token. */
  void onComplete();

  /** The leg failed (timeouts, bad termination, engine errors, transport faults). */
  void onFailure(EngineFailure failure);
}
