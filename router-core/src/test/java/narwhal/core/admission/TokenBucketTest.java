package narwhal.core.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.Test;

/** The per-tenant request-rate bucket, on a manual clock. */
class TokenBucketTest {

  private final ManualScheduler clock = new ManualScheduler(5_000_000_000L);

  @Test
  void startsFull_thenRefillsAtItsRate_andSaysHowLongUntilTheNextToken() {
    TokenBucket bucket = new TokenBucket(2, 3); // 2 a second, 3 at once

    assertThat(bucket.tryTake(clock.nanoTime())).isZero();
    assertThat(bucket.tryTake(clock.nanoTime())).isZero();
    assertThat(bucket.tryTake(clock.nanoTime())).isZero();
    long wait = bucket.tryTake(clock.nanoTime());
    assertThat(wait).as("a token every 500 ms").isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));

    clock.advance(250, TimeUnit.MILLISECONDS);
    assertThat(bucket.tryTake(clock.nanoTime())).as("half a token is not one").isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    clock.advance(250, TimeUnit.MILLISECONDS);
    assertThat(bucket.tryTake(clock.nanoTime())).isZero();
    assertThat(bucket.tryTake(clock.nanoTime())).isPositive();
  }

  @Test
  void aLongQuietSpell_refillsNoMoreThanTheBurst() {
    TokenBucket bucket = new TokenBucket(10, 2);
    bucket.tryTake(clock.nanoTime());
    clock.advance(1, TimeUnit.HOURS);

    assertThat(bucket.tryTake(clock.nanoTime())).isZero();
    assertThat(bucket.tryTake(clock.nanoTime())).isZero();
    assertThat(bucket.tryTake(clock.nanoTime())).isPositive();
  }

  @Test
  void aClockReadingEarlier_addsNothing() {
    TokenBucket bucket = new TokenBucket(1, 1);
    bucket.tryTake(clock.nanoTime());

    assertThat(bucket.tryTake(clock.nanoTime() - 10_000_000_000L)).isEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void aBucketThatCouldNeverPass_isRefused() {
    assertThatThrownBy(() -> new TokenBucket(0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TokenBucket(1, 0.5)).isInstanceOf(IllegalArgumentException.class);
  }
}
