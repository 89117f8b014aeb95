package narwhal.api;

/**
 * The front-end that carried a request to the router, for the journal's {@code front_end} column:
 * the same request can arrive over either, and an operator comparing them needs to tell them apart.
 */
public enum FrontEnd {
  HTTP("http"),
  GRPC("grpc");

  private final String wireName;

  FrontEnd(String wireName) {
    this.wireName = wireName;
  }

  /** The journal's spelling. */
  public String wireName() {
    return wireName;
  }
}
