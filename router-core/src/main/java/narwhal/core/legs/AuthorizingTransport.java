package narwhal.core.legs;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import narwhal.config.EngineApiKey;
import narwhal.time.Scheduler;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.Exchange;
import narwhal.spi.ExchangeHandler;
import narwhal.spi.ExchangeOptions;

/**
 * Puts the router's credentials ({@code engine.engine_api_key_env}) on every request to an engine:
 * prefill and decode legs of every dialect, health and liveness checks, model lists, probes and
 * attestation fetches all go through the transport, so this is the one place the header is added
 * and no caller can forget it. Client credentials never reach an engine: client auth belongs to
 * the ingress in front of the router.
 *
 * <p>Stateless beyond the key; as thread-safe as the transport it wraps.
 */
public final class AuthorizingTransport implements EngineTransport {

  /** The request header; dialects do not set it themselves. */
  public static final String HEADER = "Authorization";

  private final EngineTransport delegate;
  private final String authorization;

  private AuthorizingTransport(EngineTransport delegate, String authorization) {
    this.delegate = delegate;
    this.authorization = authorization;
  }

  /** {@code transport} with the key on every request; {@code transport} itself when there is no key. */
  public static EngineTransport wrap(EngineTransport transport, EngineApiKey key) {
    Objects.requireNonNull(transport, "transport");
    String authorization = key.authorization();
    return authorization == null ? transport : new AuthorizingTransport(transport, authorization);
  }

  @Override
  public Exchange open(URI engineBase, EngineHttpRequest request, ExchangeOptions options, Scheduler loop,
      ExchangeHandler handler) {
    Map<String, String> headers = new LinkedHashMap<>(request.headers());
    // Header names are case-insensitive: drop any other spelling so exactly one value is sent.
    headers.keySet().removeIf(name -> name.equalsIgnoreCase(HEADER));
    headers.put(HEADER, authorization);
    EngineHttpRequest authorized = new EngineHttpRequest(request.method(), request.path(), headers, request.body());
    return delegate.open(engineBase, authorized, options, loop, handler);
  }

  @Override
  public void prepare(URI engineBase, ExchangeOptions options, Scheduler loop) {
    // A connection carries no credentials: the header goes on each request sent over it.
    delegate.prepare(engineBase, options, loop);
  }

  @Override
  public int openConnections() {
    return delegate.openConnections();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
