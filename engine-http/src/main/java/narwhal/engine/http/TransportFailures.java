package narwhal.engine.http;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import narwhal.spi.TlsProblem;
import narwhal.spi.TransportFailure;
import narwhal.spi.TransportFailure.Kind;

/** Classifies what Netty reports into the kinds the router's failure policy distinguishes. */
final class TransportFailures {

  private TransportFailures() {}

  /** A connection could not be opened (the pool's connect future failed). */
  static TransportFailure connectFailure(String engine, Throwable cause) {
    // Netty's ConnectTimeoutException is a ConnectException: test it first.
    if (cause instanceof ConnectTimeoutException) {
      return new TransportFailure(Kind.CONNECT_TIMEOUT, "connect to " + engine + " timed out", cause);
    }
    if (cause instanceof SslHandshakeTimeoutException) {
      return new TransportFailure(Kind.CONNECT_TIMEOUT,
          "TLS handshake with " + engine + " did not finish within the connect timeout", cause);
    }
    TlsProblem tls = TlsProblem.of(cause);
    if (tls != null) {
      // Not reached as far as HTTP: to the router's policy, an engine it cannot connect to.
      return new TransportFailure(Kind.CONNECT_FAILED,
          "TLS handshake with " + engine + " failed: " + tls.describe(cause), cause);
    }
    return new TransportFailure(Kind.CONNECT_FAILED, "cannot connect to " + engine + ": " + cause, cause);
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
      return new TransportFailure(Kind.CONNECT_FAILED,
          "TLS handshake with " + engine + " failed: " + tls.describe(cause), cause);
    }
    if (cause instanceof DecoderException) {
      return new TransportFailure(
          Kind.PROTOCOL_ERROR, "invalid HTTP response from " + engine + ": " + cause, cause);
    }
    // IOExceptions (reset, broken pipe) and anything else leave the connection unusable.
    return new TransportFailure(
        Kind.CONNECTION_CLOSED, "connection to " + engine + " failed: " + cause, cause);
  }

  static TransportFailure connectionClosed(String engine, Throwable cause) {
    return new TransportFailure(
        Kind.CONNECTION_CLOSED, "connection to " + engine + " closed before the response completed", cause);
  }

  static TransportFailure malformed(String engine, Throwable cause) {
    return new TransportFailure(
        Kind.PROTOCOL_ERROR, "invalid HTTP response from " + engine + ": " + cause, cause);
  }

  static TransportFailure tooLarge(String engine, String what, int maxBytes) {
    return new TransportFailure(
        Kind.BODY_TOO_LARGE, what + " from " + engine + " exceeds " + maxBytes + " bytes");
  }
}
