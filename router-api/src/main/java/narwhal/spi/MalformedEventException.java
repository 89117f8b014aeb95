package narwhal.spi;

/** A stream event the dialect cannot read. */
public final class MalformedEventException extends Exception {

  private static final long serialVersionUID = 1L;

  public MalformedEventException(String message, Throwable cause) {
    super(message, cause);
  }

  public MalformedEventException(String message) {
    super(message);
  }
}
