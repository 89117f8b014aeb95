package narwhal.bench.load;

import io.netty.buffer.ByteBuf;

/**
 * Receives one HTTP response on its connection's event loop. Exactly one of {@link #onEnd} and
 * {@link #onFailure} is called, once.
 */
public interface ResponseHandler {

  void onHeaders(int status);

  /** A body chunk; it is released after the call, so do not keep it. */
  void onContent(ByteBuf content);

  void onEnd();

  void onFailure(String kind, String detail);
}
