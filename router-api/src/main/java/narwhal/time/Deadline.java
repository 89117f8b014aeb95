package narwhal.time;

/**
 * The instant a request must be answered by, on its scheduler's {@code nanoTime()} clock, and what
 * set it. Computed once, when the request is admitted (the earlier of the client's own deadline and
 * {@code serving.request_timeout_s} after arrival), then carried on the admission ticket and read
 * by everything that waits on the request's behalf: the wait for its body, the queue for a seat,
 * every attempt and backoff, and the 504 that names it.
 *
 * <p>Times are compared by difference, as {@code nanoTime()} values must be (they may wrap).
 *
 * @param atNanos the deadline as a {@code nanoTime()} value; meaningless for {@link #NONE}
 * @param bound what set it
 */
public record Deadline(long atNanos, Bound bound) {

  /** What a deadline came from, as the 504 that reports it names it. */
  public enum Bound {
    /** No deadline: only for a client that set none. */
    NONE("none"),
    /** The client's own deadline (a gRPC deadline). */
    CLIENT("the client's deadline"),
    /** The router's {@code serving.request_timeout_s} after arrival. */
    REQUEST_TIMEOUT("serving.request_timeout_s");

    private final String words;

    Bound(String words) {
      this.words = words;
    }

    /** How a 504 names it: {@code the client's deadline}, {@code serving.request_timeout_s}. */
    public String words() {
      return words;
    }
  }

  /** A client that set no deadline. */
  public static final Deadline NONE = new Deadline(0, Bound.NONE);

  /** The client's own deadline at {@code atNanos}. */
  public static Deadline client(long atNanos) {
    return new Deadline(atNanos, Bound.CLIENT);
  }

  /** {@code serving.request_timeout_s} ({@code timeoutNanos}) after {@code arrivalNanos}. */
  public static Deadline requestTimeout(long arrivalNanos, long timeoutNanos) {
    return new Deadline(arrivalNanos + timeoutNanos, Bound.REQUEST_TIMEOUT);
  }

  /** False only for {@link #NONE}. */
  public boolean isSet() {
    return bound != Bound.NONE;
  }

  /** Nanoseconds left at {@code nowNanos} (zero or less once passed); {@link Long#MAX_VALUE} when unset. */
  public long remainingNanos(long nowNanos) {
    return isSet() ? atNanos - nowNanos : Long.MAX_VALUE;
  }

  /** Whether it has passed at {@code nowNanos}; never for {@link #NONE}. */
  public boolean passed(long nowNanos) {
    return isSet() && atNanos - nowNanos <= 0;
  }

  /** The earlier of the two; on a tie, {@code this}. An unset deadline is later than any other. */
  public Deadline earliest(Deadline other) {
    if (!other.isSet()) {
      return this;
    }
    if (!isSet()) {
      return other;
    }
    return other.atNanos - atNanos < 0 ? other : this;
  }

  /**
   * What bounded the request, for the 504 that reports it: {@code "600 s
   * (serving.request_timeout_s)"}, counted from {@code arrivalNanos}.
   */
  public String describe(long arrivalNanos) {
    return Durations.describe(Math.max(0, atNanos - arrivalNanos)) + " (" + bound.words() + ")";
  }
}
