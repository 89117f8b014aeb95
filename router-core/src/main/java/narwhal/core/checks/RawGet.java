package narwhal.core.checks;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import narwhal.core.legs.OneShotExchange;
import narwhal.time.Durations;
import narwhal.time.Scheduler;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.spi.ExchangeOptions;
import narwhal.spi.TlsProblem;
import narwhal.spi.TransportFailure;

/**
 * One plain request to an engine or its sidecar, bounded by a timer on the scheduler. The future
 * completes on the scheduler with the status and body, or exceptionally with a {@link
 * GetFailure} whose message is ready for an operator. Confined to its scheduler.
 */
final class RawGet implements OneShotExchange.Outcome {

  /** An answer with any status. */
  record Reply(int status, String body) {}

  /** The request got no answer: unreachable, timed out, or broken on the wire. */
  static final class GetFailure extends Exception {
    private static final long serialVersionUID = 1L;

    GetFailure(String message) {
      super(message, null, false, false);
    }
  }

  private final CompletableFuture<Reply> result = new CompletableFuture<>();
  private final long timeoutNanos;
  private final String timeoutKey;
  private final String target;

  private RawGet(long timeoutNanos, String timeoutKey, String target) {
    this.timeoutNanos = timeoutNanos;
    this.timeoutKey = timeoutKey;
    this.target = target;
  }

  /**
   * Sends {@code request} to {@code base} on {@code loop}.
   *
   * @param timeoutKey the configuration key bounding it, named in the timeout message
   */
  static CompletableFuture<Reply> fetch(EngineTransport transport, URI base, EngineHttpRequest request,
      ExchangeOptions options, long timeoutNanos, String timeoutKey, Scheduler loop) {
    String target = request.method() + " " + withoutCredentials(base) + request.path();
    RawGet get = new RawGet(timeoutNanos, timeoutKey, target);
    loop.runInLoop(() -> {
      try {
        OneShotExchange.start(transport, base, request, options, timeoutNanos, loop, get);
      } catch (IllegalArgumentException e) {
        // e.g. a URL scheme the transport cannot speak: a configuration problem.
        get.fail("cannot send " + target + ": " + e.getMessage());
      }
    });
    return get.result;
  }

  @Override
  public void onAnswer(int status, String body) {
    result.complete(new Reply(status, body));
  }

  @Override
  public void onFailure(TransportFailure failure) {
    fail(describe(failure, target));
  }

  @Override
  public void onTimeout() {
    fail("no answer within " + Durations.describe(timeoutNanos) + " (" + timeoutKey + ")");
  }

  private void fail(String message) {
    result.completeExceptionally(new GetFailure(message));
  }

  /**
   * A transport failure as an operator reads it; an unreachable engine names the request tried
   * ({@code target}), so the line shows which URL to fix: "unreachable: GET http://10.0.0.7:8000/health:
   * connection refused: ...".
   */
  static String describe(TransportFailure failure, String target) {
    TlsProblem tls = TlsProblem.of(failure);
    if (tls != null && failure.kind() == TransportFailure.Kind.CONNECT_FAILED) {
      // "certificate expired: GET https://10.0.0.7:8443/health (NotAfter: ...); renew ...": the
      // problem first, as an operator looks for it, then where and how to fix it.
      return tls.phrase() + ": " + target + tls.explain(failure);
    }
    switch (failure.kind()) {
      case CONNECT_FAILED:
        return "unreachable: " + target + ": " + rootMessage(failure);
      case CONNECT_TIMEOUT:
        return "unreachable: " + target + ": the connection was not accepted within engine.connect_timeout_s";
      case CONNECTION_CLOSED:
        return "the connection closed before the answer was complete";
      case BODY_TOO_LARGE:
        return "the answer is too large: " + failure.getMessage();
      case PROTOCOL_ERROR:
      default:
        return "invalid HTTP answer: " + failure.getMessage();
    }
  }

  /**
   * {@code url} without user information or query: an engine URL may carry credentials
   * ({@code http://user:secret@host}), and what is printed must not.
   */
  static String withoutCredentials(URI url) {
    if (url.getRawUserInfo() == null && url.getRawQuery() == null) {
      return url.toString();
    }
    try {
      return new URI(url.getScheme(), null, url.getHost(), url.getPort(), url.getPath(), null, null).toString();
    } catch (java.net.URISyntaxException e) {
      return url.getScheme() + "://" + url.getHost() + (url.getPort() < 0 ? "" : ":" + url.getPort());
    }
  }

  /** The innermost message (the OS's "Connection refused: /127.0.0.1:1234"), lower-cased first. */
  private static String rootMessage(Throwable t) {
    String message = t.getMessage();
    for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        message = c.getMessage();
      }
    }
    if (message == null || message.isBlank()) {
      return t.getClass().getSimpleName();
    }
    return Character.toLowerCase(message.charAt(0)) + message.substring(1);
  }
}
