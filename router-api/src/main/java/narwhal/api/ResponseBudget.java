package narwhal.api;

/**
 * {@code serving.max_response_bytes} for a response a front-end assembles (HTTP {@code stream:
 * false}, gRPC {@code Complete}). The output is counted in UTF-8 bytes as it arrives, so memory
 * stays bounded and a non-ASCII answer is measured as it will be sent; the finished response is
 * checked once more, since its framing (JSON, protobuf) adds to the output. Both front-ends use
 * this one accounting so an answer over the limit fails the same way: 502 {@code decode}
 * ({@link #overLimit()}), and the request aborted with {@link #REASON} through {@link
 * RequestHandle#abort}, journalled {@code failed}.
 *
 * <p>Not thread-safe: one per response, on the request's scheduler.
 */
public final class ResponseBudget {

  /** The journal reason for a response over the limit. */
  public static final String REASON = "response_limit";

  private final long maxBytes;
  private long collectedBytes;

  public ResponseBudget(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  public long maxBytes() {
    return maxBytes;
  }

  /** Counts {@code text}'s UTF-8 size; false once the output collected so far is over the limit. */
  public boolean add(CharSequence text) {
    collectedBytes += utf8Length(text);
    return collectedBytes <= maxBytes;
  }

  /** True when a finished response of {@code encodedBytes} may be sent. */
  public boolean fits(long encodedBytes) {
    return encodedBytes <= maxBytes;
  }

  /** What the client is told: {@code response exceeds the limit of N bytes (serving.max_response_bytes)}. */
  public String overLimitMessage() {
    return "response exceeds the limit of " + maxBytes + " bytes (serving.max_response_bytes)";
  }

  /** The 502 {@code decode} error for a response over the limit. */
  public RouterError overLimit() {
    return ClientErrors.unassemblable(overLimitMessage());
  }

  /**
   * The UTF-8 length of {@code text} without encoding it. A lone surrogate counts 3 bytes, never
   * less than what an encoder sends in its place.
   */
  public static long utf8Length(CharSequence text) {
    long bytes = 0;
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
