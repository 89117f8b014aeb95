package narwhal.spi;

import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * Why a TLS handshake with an engine failed, read from the exception the JDK's TLS stack threw, in
 * the words an operator fixes it by: "certificate expired", "certificate does not match host",
 * "certificate signed by an unknown CA". The engine transport names it in its failure; preflight
 * prints it on the engine's line.
 *
 * <p>The JDK reports these as an {@code SSLHandshakeException} whose causes carry the detail (a
 * {@link CertificateExpiredException}, a {@link CertPathBuilderException} when no trusted path
 * exists, a plain {@link CertificateException} from the host name check); this walks the causes.
 */
public enum TlsProblem {
  EXPIRED("certificate expired", "renew the engine's certificate"),
  NOT_YET_VALID("certificate not yet valid", "check the engine's certificate dates and both clocks"),
  HOST_MISMATCH("certificate does not match host",
      "the certificate must name the host of the engine's URL (engine.tls.verify_hostname=false turns the check "
          + "off, for development only)"),
  UNKNOWN_CA("certificate signed by an unknown CA",
      "set engine.tls.ca_bundle to the CA that signed the engine's certificate"),
  CLIENT_CERTIFICATE_REFUSED("the engine refused the router's client certificate",
      "check engine.tls.client_cert and client_key against the CA the engine trusts"),
  NOT_TLS("the engine does not speak TLS", "it answered in plain text: should its URL be http://?"),
  HANDSHAKE_FAILED("TLS handshake failed", "");

  /** The alerts a server sends about a client's certificate (RFC 8446 section 6.2), as the JDK names them. */
  private static final java.util.Set<String> CLIENT_CERTIFICATE_ALERTS = java.util.Set.of(
      "bad_certificate", "certificate_required", "unknown_ca", "certificate_unknown", "certificate_expired",
      "certificate_revoked", "unsupported_certificate");

  private final String phrase;
  private final String fix;

  TlsProblem(String phrase, String fix) {
    this.phrase = phrase;
    this.fix = fix;
  }

  /** The problem in a few words: "certificate expired". */
  public String phrase() {
    return phrase;
  }

  /**
   * The TLS problem behind {@code failure}, or null when no TLS exception is among its causes.
   */
  public static @Nullable TlsProblem of(@Nullable Throwable failure) {
    boolean tls = false;
    TlsProblem found = null;
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SSLException) {
        tls = true;
      }
      TlsProblem p = classify(t);
      if (p != null && found == null) {
        found = p;
      }
    }
    if (found != null) {
      return found;
    }
    return tls ? HANDSHAKE_FAILED : null;
  }

  /**
   * The problem, what the TLS stack said, and the fix, for an operator: "certificate expired
   * (NotAfter: Tue Dec 01 ...); renew the engine's certificate". Never quotes received bytes.
   */
  public String describe(Throwable failure) {
    return phrase + explain(failure);
  }

  /** {@link #describe} without the phrase: " (what the TLS stack said); the fix". */
  public String explain(Throwable failure) {
    String detail = this == NOT_TLS ? null : innermostMessage(failure);
    return (detail == null ? "" : " (" + detail + ")") + (fix.isEmpty() ? "" : "; " + fix);
  }

  private static @Nullable TlsProblem classify(Throwable t) {
    if (t instanceof CertificateExpiredException) {
      return EXPIRED;
    }
    if (t instanceof CertificateNotYetValidException) {
      return NOT_YET_VALID;
    }
    if (t instanceof CertPathValidatorException v) {
      if (v.getReason() == CertPathValidatorException.BasicReason.EXPIRED) {
        return EXPIRED;
      }
      if (v.getReason() == CertPathValidatorException.BasicReason.NOT_YET_VALID) {
        return NOT_YET_VALID;
      }
      return null;
    }
    if (t instanceof CertPathBuilderException) {
      return UNKNOWN_CA; // no path from the engine's certificate to a trusted anchor
    }
    String message = t.getMessage() == null ? "" : t.getMessage();
    if (t.getClass() == CertificateException.class
        && (message.startsWith("No subject alternative") || message.startsWith("No name matching"))) {
      return HOST_MISMATCH; // the JDK's endpoint identification (sun.security.util.HostnameChecker)
    }
    if (t.getClass().getSimpleName().equals("NotSslRecordException")) {
      return NOT_TLS; // Netty's: the answer was not a TLS record
    }
    if (t instanceof SSLException && message.startsWith("Received fatal alert: ")
        && CLIENT_CERTIFICATE_ALERTS.contains(message.substring("Received fatal alert: ".length()))) {
      return CLIENT_CERTIFICATE_REFUSED; // the engine's alert about the certificate the router sent (or did not)
    }
    return null;
  }

  private static @Nullable String innermostMessage(Throwable t) {
    String message = null;
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isBlank()) {
        message = c.getMessage();
      }
    }
    return message;
  }
}
