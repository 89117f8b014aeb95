package narwhal.adapters.kit;

import java.time.Duration;

/**
 * The router limits the kit configures for each check, and how long it waits for the system to
 * settle. The timeout checks inject faults that last a few times these limits, so the defaults are
 * short (a simulator answers in milliseconds) but far above a healthy engine's latency.
 *
 * @param prefill {@code serving.prefill_timeout_s}; kept below {@code firstToken} so that a
 *     prefill fault is seen first when the legs run concurrently
 * @param firstToken {@code engine.first_token_timeout_s}, also each probe leg's bound
 * @param decodeRead {@code engine.decode_read_timeout_s}
 * @param health {@code engine.health_timeout_s} and {@code engine.connect_timeout_s}
 * @param settle the longest the kit waits for an outcome, or for counts to return to zero
 */
public record KitTimeouts(Duration prefill, Duration firstToken, Duration decodeRead, Duration health, Duration settle) {

  public static KitTimeouts defaults() {
    return new KitTimeouts(Duration.ofMillis(600), Duration.ofMillis(1200), Duration.ofMillis(500),
        Duration.ofSeconds(2), Duration.ofSeconds(10));
  }

  /** Long enough that a held leg is still waiting when every other limit has fired. */
  Duration hold() {
    return settle.multipliedBy(3);
  }
}
