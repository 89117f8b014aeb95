package narwhal.core.request;

import narwhal.core.admission.AdmissionLimits;
import narwhal.core.admission.AdmissionPrice;
import narwhal.core.admission.PredictiveAdmission;
import narwhal.core.admission.RefusalCause;
import narwhal.core.journal.PlainDecimals;
import narwhal.core.admission.Seat;
import narwhal.api.RouterError;
import narwhal.time.Durations;

/** What a client is told when admission turns its request away. */
final class AdmissionErrors {

  private AdmissionErrors() {}

  static RouterError refusal(Seat.Refusal refusal, Seat seat, AdmissionLimits limits) {
    return switch (refusal) {
      case TENANT_INFLIGHT -> RouterError.of(429, "tenant_limit_error", "tenant_inflight_limit",
          "tenant " + seat.tenant() + " has its limit of requests in flight (tenants max_in_flight); "
              + "retry after the Retry-After delay").withRetryAfter(1);
      case TENANT_QUEUE -> RouterError.of(429, "tenant_limit_error", "tenant_queue_share",
          "tenant " + seat.tenant() + " fills its share of the admission queue (tenants queue_share of "
              + "serving.queue_capacity); retry after the Retry-After delay").withRetryAfter(1);
      case TENANT_RATE -> RouterError.of(429, "tenant_limit_error", "tenant_rate_limit",
          "tenant " + seat.tenant() + " is over its request rate (tenants rate_per_s and burst); its next request "
              + "is allowed in " + Durations.describe(seat.retryAfterNanos()))
          .withRetryAfter(retryAfterSeconds(seat.retryAfterNanos()));
      case INFLIGHT_LIMIT -> RouterError.of(429, "server_overloaded_error", null,
          "router in-flight limit reached: " + limits.maxInFlight() + " requests in flight (serving.max_connections)"
              + (limits.queueCapacity() > 0
                  ? " and " + limits.queueCapacity() + " waiting (serving.queue_capacity)" : "")
              + "; retry after the Retry-After delay").withRetryAfter(1);
      case DRAINING -> RouterError.of(503, "draining", "draining",
          "router is shutting down and admits no new requests; retry on another instance").withRetryAfter(1);
      case FLEET_RESTARTING -> RouterError.of(503, "backend_unavailable", "backend_unavailable",
          "engines are restarting as one wave (recovery.engine_restart_policy = whole_wave): admission is held "
              + "until every engine is back in placement; retry after the Retry-After delay").withRetryAfter(1);
      case MONITORING_DEGRADED -> RouterError.of(503, "standby", "standby",
          "this router's engine monitoring is failing, so it admits no new requests until it recovers; retry on "
              + "another instance or after the Retry-After delay").withRetryAfter(1);
    };
  }

  /** The journal's refused cause for a tenant limit: {@code tenant_inflight}, {@code tenant_queue}, {@code tenant_rate}. */
  static String tenantCause(Seat.Refusal refusal) {
    return switch (refusal) {
      case TENANT_INFLIGHT -> "tenant_inflight";
      case TENANT_QUEUE -> "tenant_queue";
      case TENANT_RATE -> "tenant_rate";
      default -> throw new IllegalArgumentException("not a tenant limit: " + refusal);
    };
  }

  /** Whole seconds, rounded up and at least 1: a client waiting that long finds a token. */
  private static int retryAfterSeconds(long nanos) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (nanos + 999_999_999L) / 1_000_000_000L));
  }

  /**
   * 429 {@code server_overloaded_error}: predictive admission priced the request over the TTFT
   * budget. A {@link RefusalCause#QUEUE} refusal carries a {@code Retry-After} priced from the
   * backlog ({@link AdmissionPrice#retryAfterSeconds}); a {@link RefusalCause#PROMPT} refusal none,
   * since waiting cannot make its own prefill shorter.
   */
  static RouterError priced(AdmissionPrice price, RefusalCause cause, PredictiveAdmission admission, String iid,
      long promptTokens) {
    double budget = admission.budgetS();
    String budgetText = "the TTFT budget of " + seconds(budget) + " (slo.ttft_s " + seconds(admission.ttftS())
        + " x (1 + serving.admission_margin " + PlainDecimals.format(admission.margin()) + "))";
    if (cause == RefusalCause.PROMPT) {
      return RouterError.of(429, "server_overloaded_error", null,
          "prompt too long for the latency target: prefilling its " + promptTokens + " tokens alone is projected to"
              + " take " + seconds(price.ownPrefillS()) + " on engine " + iid + ", over " + budgetText
              + "; waiting cannot help: shorten the prompt");
    }
    return RouterError.of(429, "server_overloaded_error", null,
        "projected time to first token " + seconds(price.priceS()) + " is over " + budgetText + ": "
            + seconds(price.elapsedS()) + " waited + " + seconds(price.backlogS()) + " of prefill work queued on engine "
            + iid + " + " + seconds(price.ownPrefillS()) + " to prefill its " + promptTokens
            + " prompt tokens; retry after the Retry-After delay")
        .withRetryAfter(price.retryAfterSeconds(budget));
  }

  private static String seconds(double s) {
    return Durations.describe(Math.round(s * 1e9));
  }

  /** 504 {@code queue_expired}: the wait for an admission seat ran out. */
  static RouterError queueExpired(long waitedNanos) {
    return RouterError.of(504, "queue_expired", null,
        "no admission seat became free within " + Durations.describe(waitedNanos)
            + " (serving.queue_timeout_s, or the request deadline); the router is at its in-flight limit");
  }
}
