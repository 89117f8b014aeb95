package narwhal.bench.load;

/**
 * The measurement window of a run, in {@link System#nanoTime()} time: events (first tokens, token
 * gaps, completions) count only while it is open, so ramp-up, warm-up and drain never reach the
 * figures. Opened and closed by the driver thread, read by the event loops.
 */
public final class Window {
  private volatile long start = Long.MAX_VALUE;
  private volatile long end = Long.MAX_VALUE;

  public void open(long nanos) {
    start = nanos;
  }

  public void close(long nanos) {
    end = nanos;
  }

  public boolean contains(long nanos) {
    return nanos >= start && nanos < end;
  }

  public boolean isClosed() {
    return end != Long.MAX_VALUE;
  }

  public double seconds() {
    return (end - start) / 1e9;
  }
}
