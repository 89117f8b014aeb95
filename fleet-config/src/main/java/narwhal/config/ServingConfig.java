package narwhal.config;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The {@code serving} section: admission limits, the request deadline, retries, size limits, and
 * the limits on client connections themselves.
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
 * @param headerTimeoutS the longest an HTTP request head may take to arrive, in total, from the
 *     connection's accept or the head's first byte; 0 turns it off
 * @param idleTimeoutS how long a kept-alive HTTP connection may sit between requests; 0 turns it
 *     off
 * @param maxClientConnections the most client HTTP connections open at once, whether or not they
 *     hold an admission seat
 * @param tls TLS on both front-ends ({@code serving.tls}), or null to serve plain TCP
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
    double gracefulTimeoutS,
    double headerTimeoutS,
    double idleTimeoutS,
    int maxClientConnections,
    @Nullable ServingTlsConfig tls) {

  public static final long MIB = 1024L * 1024L;

  public ServingConfig {
    Objects.requireNonNull(admission, "admission");
  }

  /** A config serving plain TCP (no {@code serving.tls}). */
  public ServingConfig(
      AdmissionMode admission, double admissionMargin, int maxConnections, int queueCapacity,
      double queueTimeoutS, int maxAttempts, double retryBaseS, double retryCapS, double retryBudget,
      double retryReplenish, long maxRequestBytes, long maxResponseBytes, double requestTimeoutS,
      double prefillTimeoutS, double gracefulTimeoutS, double headerTimeoutS, double idleTimeoutS,
      int maxClientConnections) {
    this(admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
        retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
        requestTimeoutS, prefillTimeoutS, gracefulTimeoutS, headerTimeoutS, idleTimeoutS,
        maxClientConnections, null);
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
        30.0,
        20.0,
        90.0,
        4096);
  }

  /** A builder holding these fields, to change some of them by name. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  public ServingConfig withAdmission(AdmissionMode value) {
    return toBuilder().admission(value).build();
  }

  public ServingConfig withAdmissionMargin(double value) {
    return toBuilder().admissionMargin(value).build();
  }

  public ServingConfig withMaxConnections(int value) {
    return toBuilder().maxConnections(value).build();
  }

  /** Turns the admission queue on (capacity > 0) or off (capacity 0). */
  public ServingConfig withQueue(int capacity, double timeoutS) {
    return toBuilder().queueCapacity(capacity).queueTimeoutS(timeoutS).build();
  }

  public ServingConfig withMaxAttempts(int value) {
    return toBuilder().maxAttempts(value).build();
  }

  /** Sets the backoff: retry n waits uniformly in [base, max(base, min(cap, base·2^n))]. */
  public ServingConfig withRetryBackoff(double baseS, double capS) {
    return toBuilder().retryBaseS(baseS).retryCapS(capS).build();
  }

  public ServingConfig withRetryBaseS(double value) {
    return toBuilder().retryBaseS(value).build();
  }

  public ServingConfig withRetryCapS(double value) {
    return toBuilder().retryCapS(value).build();
  }

  /** Sets the shared retry credit pool: its size and the credit each completion adds back. */
  public ServingConfig withRetryBudget(double budget, double replenish) {
    return toBuilder().retryBudget(budget).retryReplenish(replenish).build();
  }

  public ServingConfig withRetryBudget(double value) {
    return toBuilder().retryBudget(value).build();
  }

  public ServingConfig withRetryReplenish(double value) {
    return toBuilder().retryReplenish(value).build();
  }

  public ServingConfig withMaxRequestBytes(long value) {
    return toBuilder().maxRequestBytes(value).build();
  }

  public ServingConfig withMaxResponseBytes(long value) {
    return toBuilder().maxResponseBytes(value).build();
  }

  public ServingConfig withRequestTimeoutS(double value) {
    return toBuilder().requestTimeoutS(value).build();
  }

  public ServingConfig withPrefillTimeoutS(double value) {
    return toBuilder().prefillTimeoutS(value).build();
  }

  public ServingConfig withGracefulTimeoutS(double value) {
    return toBuilder().gracefulTimeoutS(value).build();
  }

  public ServingConfig withHeaderTimeoutS(double value) {
    return toBuilder().headerTimeoutS(value).build();
  }

  public ServingConfig withIdleTimeoutS(double value) {
    return toBuilder().idleTimeoutS(value).build();
  }

  public ServingConfig withMaxClientConnections(int value) {
    return toBuilder().maxClientConnections(value).build();
  }

  /** Serves TLS with {@code value} on both front-ends, or plain TCP with null. */
  public ServingConfig withTls(@Nullable ServingTlsConfig value) {
    return toBuilder().tls(value).build();
  }

  /**
   * Builds a {@link ServingConfig} by name rather than by position; {@link #build} applies the
   * record's checks. Start from {@link ServingConfig#defaults} with {@link #toBuilder}.
   */
  public static final class Builder {
    private AdmissionMode admission;
    private double admissionMargin;
    private int maxConnections;
    private int queueCapacity;
    private double queueTimeoutS;
    private int maxAttempts;
    private double retryBaseS;
    private double retryCapS;
    private double retryBudget;
    private double retryReplenish;
    private long maxRequestBytes;
    private long maxResponseBytes;
    private double requestTimeoutS;
    private double prefillTimeoutS;
    private double gracefulTimeoutS;
    private double headerTimeoutS;
    private double idleTimeoutS;
    private int maxClientConnections;
    private @Nullable ServingTlsConfig tls;

    private Builder(ServingConfig from) {
      admission = from.admission;
      admissionMargin = from.admissionMargin;
      maxConnections = from.maxConnections;
      queueCapacity = from.queueCapacity;
      queueTimeoutS = from.queueTimeoutS;
      maxAttempts = from.maxAttempts;
      retryBaseS = from.retryBaseS;
      retryCapS = from.retryCapS;
      retryBudget = from.retryBudget;
      retryReplenish = from.retryReplenish;
      maxRequestBytes = from.maxRequestBytes;
      maxResponseBytes = from.maxResponseBytes;
      requestTimeoutS = from.requestTimeoutS;
      prefillTimeoutS = from.prefillTimeoutS;
      gracefulTimeoutS = from.gracefulTimeoutS;
      headerTimeoutS = from.headerTimeoutS;
      idleTimeoutS = from.idleTimeoutS;
      maxClientConnections = from.maxClientConnections;
      tls = from.tls;
    }

    public Builder admission(AdmissionMode value) {
      admission = value;
      return this;
    }

    public Builder admissionMargin(double value) {
      admissionMargin = value;
      return this;
    }

    public Builder maxConnections(int value) {
      maxConnections = value;
      return this;
    }

    public Builder queueCapacity(int value) {
      queueCapacity = value;
      return this;
    }

    public Builder queueTimeoutS(double value) {
      queueTimeoutS = value;
      return this;
    }

    public Builder maxAttempts(int value) {
      maxAttempts = value;
      return this;
    }

    public Builder retryBaseS(double value) {
      retryBaseS = value;
      return this;
    }

    public Builder retryCapS(double value) {
      retryCapS = value;
      return this;
    }

    public Builder retryBudget(double value) {
      retryBudget = value;
      return this;
    }

    public Builder retryReplenish(double value) {
      retryReplenish = value;
      return this;
    }

    public Builder maxRequestBytes(long value) {
      maxRequestBytes = value;
      return this;
    }

    public Builder maxResponseBytes(long value) {
      maxResponseBytes = value;
      return this;
    }

    public Builder requestTimeoutS(double value) {
      requestTimeoutS = value;
      return this;
    }

    public Builder prefillTimeoutS(double value) {
      prefillTimeoutS = value;
      return this;
    }

    public Builder gracefulTimeoutS(double value) {
      gracefulTimeoutS = value;
      return this;
    }

    public Builder headerTimeoutS(double value) {
      headerTimeoutS = value;
      return this;
    }

    public Builder idleTimeoutS(double value) {
      idleTimeoutS = value;
      return this;
    }

    public Builder maxClientConnections(int value) {
      maxClientConnections = value;
      return this;
    }

    public Builder tls(@Nullable ServingTlsConfig value) {
      tls = value;
      return this;
    }

    public ServingConfig build() {
      return new ServingConfig(
          admission, admissionMargin, maxConnections, queueCapacity, queueTimeoutS, maxAttempts,
          retryBaseS, retryCapS, retryBudget, retryReplenish, maxRequestBytes, maxResponseBytes,
          requestTimeoutS, prefillTimeoutS, gracefulTimeoutS, headerTimeoutS, idleTimeoutS,
          maxClientConnections, tls);
    }
  }
}
