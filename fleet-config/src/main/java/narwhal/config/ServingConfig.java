package narwhal.config;

import java.util.Objects;

/**
 * The {@code serving} section: admission limits, the request deadline, retries and size limits.
 *
 * @param admission how requests are admitted
 * @param admissionMargin extra headroom on the TTFT budget: budget = {@code slo.ttft_s · (1 +
 *     admission_margin)}
 * @param maxConnections the most client connections (and in-flight requests) the router holds
 * @param queueCapacity how many requests may wait for an admission seat; 0 turns the queue off
 * @param queueTimeoutS the longest wait for an admission seat, in seconds
 * @param maxAttempts prefill/decode attempts per request, the first one included
 * @param retryBaseS the shortest backoff before a retry, and the first retry's range unit (see
 *     {@link narwhal.core.retry.Backoff})
 * @param retryCapS the longest backoff before a retry
 * @param retryBudget the shared retry credit pool's size
 * @param retryReplenish credit added back to the pool per completed request
 * @param maxRequestBytes the largest request body accepted
 * @param maxResponseBytes the largest assembled (non-streaming) response, and the largest single
 *     engine event
 * @param requestTimeoutS the whole request's deadline, from arrival
 * @param prefillTimeoutS the prefill leg's timeout
 * @param gracefulTimeoutS how long shutdown waits for in-flight requests
 */
public record ServingConfig(
    AdmissionMode admission,
    double admissionMargin,
    int maxConnections,
    int queueCapacity,
    double queueTimeoutS,
    int maxAttempts,
    double retryBaseS,
    double retryCapS,
    double retryBudget,
    double retryReplenish,
    long maxRequestBytes,
    long maxResponseBytes,
    double requestTimeoutS,
    double prefillTimeoutS,
    double gracefulTimeoutS) {

  public static final long MIB = 1024L * 1024L;

  public ServingConfig {
    Objects.requireNonNull(admission, "admission");
  }

  public static ServingConfig defaults() {
    return new ServingConfig(
        AdmissionMode.PREDICTIVE,
        0.0,
        512,
        0,
        0.0,
        1,
        0.1,
        1.0,
        10.0,
        0.1,
        4 * MIB,
        16 * MIB,
        600.0,
        120.0,
        30.0);
  }

  public ServingConfig withAdmission(AdmissionMode value) {
    return new ServingConfig(
        value, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withAdmissionMargin(double value) {
    return new ServingConfig(
        admission, value, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withMaxConnections(int value) {
    return new ServingConfig(
        admission, admissionMargin, value, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  /** Turns the admission queue on (capacity > 0) or off (capacity 0). */
  public ServingConfig withQueue(int capacity, double timeoutS) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, capacity, timeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withMaxAttempts(int value) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, value,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  /** Sets the backoff: retry n waits uniformly in [base, max(base, min(cap, base·2^n))]. */
  public ServingConfig withRetryBackoff(double baseS, double capS) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        baseS, capS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withRetryBaseS(double value) {
    return withRetryBackoff(value, retryCapS);
  }

  public ServingConfig withRetryCapS(double value) {
    return withRetryBackoff(retryBaseS, value);
  }

  /** Sets the shared retry credit pool: its size and the credit each completion adds back. */
  public ServingConfig withRetryBudget(double budget, double replenish) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, budget, replenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withRetryBudget(double budget) {
    return withRetryBudget(budget, retryReplenish);
  }

  public ServingConfig withRetryReplenish(double replenish) {
    return withRetryBudget(retryBudget, replenish);
  }

  public ServingConfig withMaxRequestBytes(long value) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, value, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withMaxResponseBytes(long value) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, value,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withRequestTimeoutS(double value) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        value, prefillTimeoutS, gracefulTimeoutS);
  }

  public ServingConfig withPrefillTimeoutS(double value) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, value, gracefulTimeoutS);
  }

  public ServingConfig withGracefulTimeoutS(double value) {
    return new ServingConfig(
        admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, value);
  }
}
