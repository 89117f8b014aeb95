package narwhal.api;


/**
 * What a client is told when authentication or authorization fails, in OpenAI's words: the type
 * is {@code invalid_request_error} as OpenAI's own 401s and 403s are, and the SDKs map on the
 * status ({@code AuthenticationError}, {@code PermissionDeniedError}). No message ever repeats
 * what the client sent: a key must not come back in a response, a log or a journal row.
 */
public final class AuthErrors {

  /** The {@code WWW-Authenticate} challenge sent with every 401 (RFC 6750). */
  public static final String CHALLENGE = "Bearer realm=\"narwhal\"";

  private AuthErrors() {}

  /** 401 {@code missing_api_key}: no {@code Authorization: Bearer} credentials. */
  public static RouterError missing() {
    return RouterError.of(401, "invalid_request_error", "missing_api_key",
        "You didn't provide an API key. Send it in the Authorization header as 'Bearer <key>' "
            + "(gRPC: the authorization metadata key).");
  }

  /**
   * 401 {@code invalid_api_key}: the {@code Bearer} scheme followed by a tab or another whitespace
   * character than a space, which RFC 6750 does not allow (and which a proxy may read otherwise).
   */
  public static RouterError malformedBearer() {
    return RouterError.of(401, "invalid_request_error", "invalid_api_key",
        "Malformed Authorization header: separate Bearer and the key with a space, as 'Bearer <key>' "
            + "(RFC 6750 allows no tab or other whitespace there).");
  }

  /**
   * 400 {@code ambiguous_authorization}: the request carries more than one {@code Authorization}
   * value. Refused rather than picking one: a proxy in front may have checked the other.
   */
  public static RouterError ambiguous(int values) {
    return RouterError.of(400, "invalid_request_error", "ambiguous_authorization",
        "The request carries " + values + " Authorization headers (gRPC: authorization metadata values); "
            + "send exactly one, as 'Bearer <key>'.");
  }

  /** 401 {@code invalid_api_key}: credentials were sent but no configured key matches them. */
  public static RouterError unknown() {
    return RouterError.of(401, "invalid_request_error", "invalid_api_key",
        "Incorrect API key provided. Ask the router's operator for a valid key.");
  }

  /** 403 {@code model_not_allowed}: the tenant is known but may not use {@code model}. */
  public static RouterError modelNotAllowed(String tenant, String model) {
    return new RouterError(403, "invalid_request_error", "model_not_allowed",
        "Tenant " + tenant + " is not allowed to use the model `" + model + "`.", "model", null);
  }

  /** 401 for the operator routes: an operator key is required and none matched. */
  public static RouterError operatorOnly() {
    return RouterError.of(401, "invalid_request_error", "invalid_api_key",
        "This route requires an operator key (tenants.operator_keys) in the Authorization header as 'Bearer <key>'.");
  }
}
