package narwhal.spi;

import java.net.URI;
import narwhal.time.Scheduler;

/**
 * Non-blocking HTTP/1.1 exchanges with engines. Implemented on Netty by {@code narwhal.engine.http}.
 *
 * <p>Contract: every {@link ExchangeHandler} callback runs on the {@code loop} passed to {@link
 * #open}; after {@link ExchangeHandler#onEnd} or {@link ExchangeHandler#onFailure} no further
 * callback arrives; exactly one of those two ends every exchange unless it was cancelled first.
 * Connections are pooled per engine and reused when a response completed cleanly.
 */
public interface EngineTransport extends AutoCloseable {

  /**
   * Starts sending {@code request} to the engine at {@code engineBase} (e.g. {@code
   * http://127.0.0.1:8100}). Never blocks; a connection failure is reported to the handler.
   */
  Exchange open(
      URI engineBase,
      EngineHttpRequest request,
      ExchangeOptions options,
      Scheduler loop,
      ExchangeHandler handler);

  /**
   * Readies a connection to the engine at {@code engineBase} for an exchange the caller expects to
   * {@link #open} on {@code loop} soon: when no idle connection to it is kept there and none is
   * being readied, starts a connect (TLS handshake included) whose connection then waits in the
   * pool like any idle one, so the exchange that follows does not wait for it. A hint only: it never
   * blocks, and a failure is dropped (the exchange that follows connects again and reports it). The
   * default does nothing.
   */
  default void prepare(URI engineBase, ExchangeOptions options, Scheduler loop) {}

  /** Open connections (idle and in use), for tests and metrics. */
  int openConnections();

  /** Closes every pooled connection. */
  @Override
  void close();
}
