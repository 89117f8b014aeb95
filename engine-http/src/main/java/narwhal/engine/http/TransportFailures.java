package narwhal.engine.http;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.Locale;
import narwhal.spi.TlsProblem;
import narwhal.spi.TransportFailure;
import narwhal.spi.TransportFailure.Kind;

/**
 * Classifies what Netty reports into the kinds the router's failure policy distinguishes. Each
 * failure's message is for operators (the engine's URL, the exception); its client detail says
 * the same in words that name no address, port or class, since it reaches clients.
 */
final class TransportFailures {

  private TransportFailures() {}

  /** A connection could not be opened (the pool's connect future failed). */
  static TransportFailure connectFailure(String engine, Throwable cause) {
    // Netty's ConnectTimeoutException is a ConnectException: test it first.
    if (cause instanceof ConnectTimeoutException) {
      return new TransportFailure(Kind.CONNECT_TIMEOUT, "connect to " + engine + " timed out", null, cause);
    }
    if (cause instanceof SslHandshakeTimeoutException) {
      return new TransportFailure(Kind.CONNECT_TIMEOUT,
          "TLS handshake with " + engine + " did not finish within the connect timeout",
          "did not finish the TLS handshake within the connect timeout", cause);
    }
    TlsProblem tls = TlsProblem.of(cause);
    if (tls != null) {
      // Not reached as far as HTTP: to the router's policy, an engine it cannot connect to.
      return tlsFailure(engine, tls, cause);
    }
    return new TransportFailure(Kind.CONNECT_FAILED, "cannot connect to " + engine + ": " + cause,
        connectProblem(cause), cause);
  }

  /**
   * Why a connection could not be opened, in a client's words: the JDK's and Netty's messages
   * carry the address ("Connection refused: /10.0.0.7:8001"), so only their kind is kept.
   */
  static String connectProblem(Throwable cause) {
    if (cause instanceof UnknownHostException) {
      return "could not be reached: its host name does not resolve";
    }
    if (cause instanceof NoRouteToHostException) {
      return "could not be reached: no route to its host";
    }
    String message = cause.getMessage() == null ? "" : cause.getMessage().toLowerCase(Locale.ROOT);
    if (cause instanceof ConnectException && message.startsWith("connection refused")) {
      return "refused the connection";
    }
    if (message.startsWith("network is unreachable") || message.startsWith("no route to host")) {
      return "could not be reached: no route to its host";
    }
    return "could not be connected to";
  }

  private static TransportFailure tlsFailure(String engine, TlsProblem tls, Throwable cause) {
    return new TransportFailure(Kind.CONNECT_FAILED, "TLS handshake with " + engine + " failed: " + tls.describe(cause),
        "failed the TLS handshake: " + tls.phrase(), cause);
  }

  /** The open connection reported an error while the exchange was running. */
  static TransportFailure channelError(String engine, Throwable cause) {
    if (cause instanceof PrematureChannelClosureException) {
      return connectionClosed(engine, cause);
    }
    TlsProblem tls = TlsProblem.of(cause);
    if (tls != null && tls != TlsProblem.HANDSHAKE_FAILED) {
      // Under TLS 1.3 an engine judges the router's certificate after the client's side of the
      // handshake is done: its refusal arrives on the first read. Nothing was processed.
      return tlsFailure(engine, tls, cause);
    }
    if (cause instanceof DecoderException) {
      return malformed(engine, cause);
    }
    // IOExceptions (reset, broken pipe) and anything else leave the connection unusable.
    return new TransportFailure(
        Kind.CONNECTION_CLOSED, "connection to " + engine + " failed: " + cause, null, cause);
  }

  static TransportFailure connectionClosed(String engine, Throwable cause) {
    return new TransportFailure(
        Kind.CONNECTION_CLOSED, "connection to " + engine + " closed before the response completed", null, cause);
  }

  static TransportFailure malformed(String engine, Throwable cause) {
    return new TransportFailure(
        Kind.PROTOCOL_ERROR, "invalid HTTP response from " + engine + ": " + cause, "sent a malformed HTTP response",
        cause);
  }

  static TransportFailure tooLarge(String engine, String what, int maxBytes) {
    return new TransportFailure(
        Kind.BODY_TOO_LARGE, what + " from " + engine + " exceeds " + maxBytes + " bytes",
        "sent a response over the router's limit: " + what + " exceeds " + maxBytes + " bytes", null);
  }
}
