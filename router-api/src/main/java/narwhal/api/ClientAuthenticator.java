package narwhal.api;

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
    public Authentication authenticate(@Nullable String authorization) {
      return Authentication.accepted(Caller.ANONYMOUS);
    }

    @Override
    public Authentication authenticateOperator(@Nullable String authorization) {
      return Authentication.accepted(Caller.ANONYMOUS);
    }
  };

  /** True when completion requests must carry a tenant's key. */
  boolean required();

  /**
   * The caller proven by {@code authorization} (the raw header or metadata value, e.g. {@code
   * Bearer nwk_...}), or a 401 refusal. Without tenants every caller is anonymous.
   */
  Authentication authenticate(@Nullable String authorization);

  /**
   * Whether {@code authorization} opens the operator routes ({@code /metrics}, {@code
   * /narwhal/state}): always when no operator keys are configured, else only with one of them.
   */
  Authentication authenticateOperator(@Nullable String authorization);
}
