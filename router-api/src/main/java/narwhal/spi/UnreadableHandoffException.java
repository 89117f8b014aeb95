package narwhal.spi;

/** A prefill response that carries no usable KV handoff descriptor. */
public final class UnreadableHandoffException extends Exception {

  private static final long serialVersionUID = 1L;

  public UnreadableHandoffException(String message) {
    super(message);
  }
}
