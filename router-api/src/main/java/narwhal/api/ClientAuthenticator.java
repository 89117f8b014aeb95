package narwhal.api;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Checks the credentials a client presents. Front-ends call it when a request's headers arrive,
 * before reading its body or taking an admission seat, and pass the resulting {@link Caller} to
 * the core; whether a tenant may use the model is the core's decision, once the body is read.
 * Thread-safe and non-blocking (one salted hash per call).
 */
public interface ClientAuthenticator {

  /** Lets everyone in as {@link Caller#ANONYMOUS}: a router without tenants. */
  ClientAuthenticator OPEN = new ClientAuthenticator() {
    @Override
    public boolean required() {
      return false;
    }

    @Override
    public Authentication authenticate(List<String> authorization) {
      return Authentication.accepted(Caller.ANONYMOUS);
    }

    @Override
    public Authentication authenticateOperator(List<String> authorization) {
      return Authentication.accepted(Caller.ANONYMOUS);
    }
  };

  /** True when completion requests must carry a tenant's key. */
  boolean required();

  /**
   * The caller proven by {@code authorization}: every value of the request's {@code
   * Authorization} header (gRPC: {@code authorization} metadata), e.g. {@code Bearer nwk_...}; or a
   * refusal: 401 for no key, an unknown one or a malformed {@code Bearer} credential, 400 for more
   * than one value (ambiguous: which would a proxy in front have checked?). Without tenants every
   * caller is anonymous.
   */
  Authentication authenticate(List<String> authorization);

  /** As {@link #authenticate(List)} for a request with at most one {@code Authorization} value. */
  default Authentication authenticate(@Nullable String authorization) {
    return authenticate(authorization == null ? List.of() : List.of(authorization));
  }

  /**
   * Whether {@code authorization} (every value, as for {@link #authenticate(List)}) opens the
   * operator routes ({@code /metrics}, {@code /narwhal/state}): always when no operator keys are
   * configured, else only with exactly one of them.
   */
  Authentication authenticateOperator(List<String> authorization);

  /** As {@link #authenticateOperator(List)} for a request with at most one {@code Authorization} value. */
  default Authentication authenticateOperator(@Nullable String authorization) {
    return authenticateOperator(authorization == null ? List.of() : List.of(authorization));
  }
}
