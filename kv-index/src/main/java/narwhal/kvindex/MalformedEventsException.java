package narwhal.kvindex;

/** A KV event message that cannot be read: the message says what is wrong with it. */
final class MalformedEventsException extends Exception {
  private static final long serialVersionUID = 1L;

  MalformedEventsException(String message) {
    super(message);
  }
}
