package narwhal.core.request;

import java.time.Duration;
import narwhal.config.FleetConfig;
import narwhal.core.legs.LegLimits;
import narwhal.spi.ExchangeOptions;
import org.jspecify.annotations.Nullable;

/**
 * The fleet configuration as one request needs it, converted once to nanoseconds.
 *
 * @param handoffBoundNanos the oldest a KV handoff may be at decode dispatch (lease minus a sixth
 *     of it, from {@code engine_contract.kv_lease_duration_s}); 0 means unbounded
 * @param charsPerToken {@code engine.chars_per_token}, for prompt sizes no engine counted
 * @param tokenize {@code engine.tokenize}: ask an engine's tokenize route for the exact prompt size
 * @param tokenizeTimeoutNanos {@code engine.tokenize_timeout_s}: the longest that count may take
 */
record RequestSettings(
    String model,
    long requestTimeoutNanos,
    LegLimits prefillLimits,
    LegLimits decodeLimits,
    int maxAttempts,
    long retryBaseNanos,
    long retryCapNanos,
    long handoffBoundNanos,
    long quarantineNanos,
    double charsPerToken,
    boolean tokenize,
    long tokenizeTimeoutNanos) {

  static RequestSettings from(FleetConfig config) {
    ExchangeOptions exchange = new ExchangeOptions(
        seconds(config.engine().connectTimeoutS()),
        (int) Math.min(Integer.MAX_VALUE, config.serving().maxResponseBytes()));
    // The contract's own rule, lease - floor(lease / 6) in whole seconds (10 s -> 9 s); dividing
    // milliseconds instead gave 8.334 s and expired handoffs the spec allows.
    Double boundS = config.handoffBoundS();
    long bound = boundS == null ? 0 : seconds(boundS).toNanos();
    return new RequestSettings(
        config.model(),
        seconds(config.serving().requestTimeoutS()).toNanos(),
        LegLimits.prefill(seconds(config.serving().prefillTimeoutS()), exchange),
        LegLimits.decode(
            seconds(config.engine().firstTokenTimeoutS()), seconds(config.engine().decodeReadTimeoutS()), exchange),
        config.serving().maxAttempts(),
        seconds(config.serving().retryBaseS()).toNanos(),
        seconds(config.serving().retryCapS()).toNanos(),
        bound,
        seconds(config.recovery().failureQuarantineS()).toNanos(),
        config.engine().charsPerToken(),
        config.engine().tokenize(),
        seconds(config.engine().tokenizeTimeoutS()).toNanos());
  }

  /**
   * A request's deadline on its scheduler's clock: {@code serving.request_timeout_s} after arrival,
   * or the client's own deadline when that comes first.
   *
   * @param clientDeadlineNanos the client's deadline (gRPC), or null
   */
  long deadlineNanos(long arrivalNanos, @Nullable Long clientDeadlineNanos) {
    long configured = arrivalNanos + requestTimeoutNanos;
    // Compared by difference: nanoTime values may wrap, so Math.min would pick the wrong one.
    return clientDeadlineNanos != null && clientDeadlineNanos - configured < 0 ? clientDeadlineNanos : configured;
  }

  private static Duration seconds(double s) {
    return Duration.ofNanos(Math.round(s * 1e9));
  }
}
