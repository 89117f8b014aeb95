package narwhal.api;

/** Bad client input, found before admission; carries the 4xx the client gets. */
public final class InvalidRequestException extends Exception {

  private static final long serialVersionUID = 1L;

  private final transient RouterError error;

  public InvalidRequestException(RouterError error) {
    super(error.message());
    this.error = error;
  }

  public static InvalidRequestException badField(String param, String message) {
    return new InvalidRequestException(RouterError.invalid(message, param));
  }

  public RouterError error() {
    return error;
  }
}
