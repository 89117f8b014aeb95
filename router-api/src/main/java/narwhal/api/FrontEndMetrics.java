package narwhal.api;

import java.util.function.LongSupplier;

/**
 * The router's metrics as a front-end sees them: the series it registers about itself (its client
 * connections) and the whole exposition it serves at {@code GET /metrics}. The core implements it
 * over its Dropwizard registry ({@code narwhal.core.metrics.RouterMetrics}), so a front-end never
 * compiles against the core.
 *
 * <p>Both registrations read the owner's own value at scrape time; registering a series twice
 * keeps the first. Thread-safe.
 */
public interface FrontEndMetrics {

  /**
   * A gauge series read at scrape time.
   *
   * @param labelPairs label name, value, name, value, ...
   */
  void registerGauge(String familyName, String help, LongSupplier value, String... labelPairs);

  /**
   * A counter series whose cumulative count its owner keeps; {@code familyName} ends in {@code
   * _total}.
   *
   * @param labelPairs label name, value, name, value, ...
   */
  void registerCounter(String familyName, String help, LongSupplier count, String... labelPairs);

  /** Every series of the router, in the Prometheus text format (version 0.0.4). */
  byte[] scrape();

  /** The {@code Content-Type} of {@link #scrape()}. */
  String scrapeContentType();
}
