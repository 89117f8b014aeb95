package narwhal.bench.load;

import java.time.Duration;

/**
 * The timeline of one run: ramp (starting the streams), warm-up (running, not measured), the
 * measurement window, then drain (no new requests; in-flight ones finish but are not counted).
 */
public record LoadShape(Duration ramp, Duration warmup, Duration measure, Duration requestTimeout,
    long sampleMillis) {

  public LoadShape {
    if (measure.isZero() || measure.isNegative()) {
      throw new IllegalArgumentException("the measurement window must be positive");
    }
  }

  public static LoadShape of(Duration ramp, Duration warmup, Duration measure, Duration requestTimeout) {
    return new LoadShape(ramp, warmup, measure, requestTimeout, 250);
  }
}
