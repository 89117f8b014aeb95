package narwhal.core.metrics;

import com.codahale.metrics.Counter;
import java.util.function.LongSupplier;

/**
 * A counter whose owner keeps the count (Dropwizard has no function counter): exporters see a
 * {@link Counter}, so the series is typed as one. Increments are not supported.
 */
final class ReadingCounter extends Counter {

  private final LongSupplier count;

  ReadingCounter(LongSupplier count) {
    this.count = count;
  }

  @Override
  public long getCount() {
    return count.getAsLong();
  }

  @Override
  public void inc(long n) {
    throw new UnsupportedOperationException("read-only: the owner keeps the count");
  }

  @Override
  public void dec(long n) {
    throw new UnsupportedOperationException("read-only: the owner keeps the count");
  }
}
