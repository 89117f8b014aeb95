package narwhal.core.request;

import narwhal.core.admission.AdmissionLimits;
import narwhal.core.admission.Seat;
import narwhal.api.RouterError;
import narwhal.time.Durations;

/** What a client is told when admission turns its request away. */
final class AdmissionErrors {

  private AdmissionErrors() {}

  static RouterError refusal(Seat.Refusal refusal, AdmissionLimits limits) {
    return switch (refusal) {
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
    };
  }

  /** 504 {@code queue_expired}: the wait for an admission seat ran out. */
  static RouterError queueExpired(long waitedNanos) {
    return RouterError.of(504, "queue_expired", null,
        "no admission seat became free within " + Durations.describe(waitedNanos)
            + " (serving.queue_timeout_s, or the request deadline); the router is at its in-flight limit");
  }
}
