package narwhal.core.admission;

import narwhal.config.ServingConfig;

/**
 * The admission limits of {@code serving}.
 *
 * @param maxInFlight requests admitted at once ({@code max_connections}); each holds a seat from
 *     arrival until its response is over
 * @param queueCapacity requests that may wait for a seat ({@code queue_capacity}); 0 turns the
 *     queue off
 * @param queueTimeoutNanos the longest a request waits for a seat ({@code queue_timeout_s}); 0
 *     means only the request's own deadline bounds the wait
 */
public record AdmissionLimits(int maxInFlight, int queueCapacity, long queueTimeoutNanos) {

  public AdmissionLimits {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be at least 1, got " + maxInFlight);
    }
    if (queueCapacity < 0 || queueTimeoutNanos < 0) {
      throw new IllegalArgumentException("queue capacity and timeout must not be negative");
    }
  }

  public static AdmissionLimits from(ServingConfig serving) {
    return new AdmissionLimits(serving.maxConnections(), serving.queueCapacity(),
        Math.round(serving.queueTimeoutS() * 1e9));
  }
}
