/**
 * Engine I/O for the router: a non-blocking HTTP/1.1 client on Netty that implements {@link
 * narwhal.spi.EngineTransport}.
 *
 * <p>This package only moves bytes. Engine dialects (for example the vLLM adapter) decide what to
 * send and what the answer means; here a request goes out as given, keep-alive connections are
 * pooled per event loop and engine, the response is framed (one aggregated body, or incremental
 * server-sent events) and wire-level failures are classified as {@link
 * narwhal.spi.TransportFailure} kinds. Callbacks run on the request's own {@link
 * narwhal.time.Scheduler}: when that is an {@link narwhal.netty.EventLoopScheduler}, the
 * engine connection lives on the same event loop and no thread hop happens.
 */
package narwhal.engine.http;
