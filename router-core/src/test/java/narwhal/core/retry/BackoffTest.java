package narwhal.core.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** Retry n waits uniformly in [base, max(base, min(cap, base·2^n))], below the time left. */
class BackoffTest {

  private static final long MS = 1_000_000L;
  private static final long BASE = 100 * MS;
  private static final long CAP = 1_000 * MS;
  private static final long PLENTY = 600_000 * MS;

  /** Hands out the scripted uniform draws in order, so every delay is exact. */
  private static final class ScriptedRandom implements RandomGenerator {
    private final ArrayDeque<Double> draws;

    ScriptedRandom(Double... draws) {
      this.draws = new ArrayDeque<>(List.of(draws));
    }

    @Override
    public double nextDouble() {
      return draws.remove();
    }

    @Override
    public long nextLong() {
      throw new AssertionError("the backoff draws doubles only");
    }
  }

  private static Backoff backoff(Double... draws) {
    return new Backoff(BASE, CAP, new ScriptedRandom(draws));
  }

  @Test
  void floor_theLowestDrawWaitsTheBase_neverLess() {
    assertThat(backoff(0.0).delayNanos(1, PLENTY)).isEqualTo(BASE);
    assertThat(backoff(0.0).delayNanos(5, PLENTY)).isEqualTo(BASE);
  }

  @Test
  void growth_theRangeTopDoublesPerRetry() {
    // Retry 1: [100, 200) ms; retry 2: [100, 400); retry 3: [100, 800).
    Backoff b = backoff(0.5, 0.5, 0.5);
    assertThat(b.delayNanos(1, PLENTY)).isEqualTo(150 * MS);
    assertThat(b.delayNanos(2, PLENTY)).isEqualTo(250 * MS);
    assertThat(b.delayNanos(3, PLENTY)).isEqualTo(450 * MS);
  }

  @Test
  void cap_boundsTheRangeTop_evenForLateRetries() {
    // Retry 4 would reach 1.6 s and retry 70 would overflow base·2^n: both stop at the 1 s cap.
    Backoff b = backoff(0.5, 0.5, 0.999999999);
    assertThat(b.delayNanos(4, PLENTY)).isEqualTo(550 * MS);
    assertThat(b.delayNanos(70, PLENTY)).isEqualTo(550 * MS);
    assertThat(b.delayNanos(4, PLENTY)).isLessThan(CAP).isGreaterThan(CAP - MS);
  }

  @Test
  void capAtOrBelowBase_waitsExactlyTheBase() {
    Backoff b = new Backoff(BASE, BASE, new ScriptedRandom(0.9));
    assertThat(b.delayNanos(3, PLENTY)).isEqualTo(BASE);
  }

  @Test
  void timeLeft_capsTheRangeTop_andTheDelayStaysBelowIt() {
    // 300 ms left on retry 3 (range top 800 ms): the draw spans [100, 300) ms instead.
    assertThat(backoff(0.5).delayNanos(3, 300 * MS)).isEqualTo(200 * MS);
    assertThat(backoff(0.0).delayNanos(3, 300 * MS)).isEqualTo(BASE);
    // Even the highest draw leaves the retry some time before the deadline.
    assertThat(backoff(Math.nextDown(1.0)).delayNanos(3, 300 * MS)).isEqualTo(300 * MS - 1);
  }

  @Test
  void timeLeft_notMoreThanTheBase_meansNoRetry() {
    Backoff b = backoff(); // nothing scripted: a refused retry draws nothing
    assertThat(b.delayNanos(1, BASE)).isEqualTo(Backoff.NO_TIME_LEFT);
    assertThat(b.delayNanos(1, 0)).isEqualTo(Backoff.NO_TIME_LEFT);
    assertThat(b.delayNanos(1, -5 * MS)).isEqualTo(Backoff.NO_TIME_LEFT);
    assertThat(backoff(0.0).delayNanos(1, BASE + 1)).isEqualTo(BASE);
  }

  @Test
  void jitter_everyDrawMapsLinearlyOntoTheRange() {
    // Retry 1 spans [100, 200) ms: a draw u waits 100 ms + u·100 ms.
    double[] draws = {0.0, 0.1, 0.25, 0.75, 0.9};
    long[] expected = {100 * MS, 110 * MS, 125 * MS, 175 * MS, 190 * MS};
    for (int i = 0; i < draws.length; i++) {
      assertThat(backoff(draws[i]).delayNanos(1, PLENTY)).as("draw %s", draws[i]).isEqualTo(expected[i]);
    }
  }

  @Test
  void zeroBase_retriesAtOnce_whileTimeIsLeft() {
    Backoff b = new Backoff(0, CAP, new ScriptedRandom(0.9));
    assertThat(b.delayNanos(1, PLENTY)).isZero();
    assertThat(b.delayNanos(1, 0)).isEqualTo(Backoff.NO_TIME_LEFT);
  }

  @Test
  void invalidArguments_areRefused() {
    assertThatThrownBy(() -> new Backoff(-1, CAP, new ScriptedRandom())).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> backoff().delayNanos(0, PLENTY)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("start at 1");
  }
}
