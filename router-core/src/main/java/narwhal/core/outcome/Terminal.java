package narwhal.core.outcome;

import java.util.Locale;

/**
 * How a request ended, as the journal's {@code terminal} column spells it. Each terminal has its
 * own {@code reason} vocabulary (see docs/journal-and-metrics.md, "Journal"):
 *
 * <ul>
 *   <li>{@link #COMPLETED}: no reason.
 *   <li>{@link #FAILED}: {@code no_engine}, {@code engine_unreachable}, {@code engine_connection},
 *       {@code engine_timeout}, {@code engine_overloaded}, {@code engine_rejected}, {@code
 *       engine_error}, {@code local_pool}, {@code invalid_response}, {@code response_limit},
 *       {@code internal}.
 *   <li>{@link #REFUSED}: predictive admission's causes: {@code queue} (the prefill work queued
 *       ahead makes it miss the TTFT budget) and {@code prompt} (its own prefill alone does); and the
 *       caller's tenant's own limits: {@code tenant_inflight}, {@code tenant_queue}, {@code
 *       tenant_rate}.
 *   <li>{@link #REJECTED}: {@code inflight_limit}, {@code saturated}, {@code not_ready}.
 *   <li>{@link #EXPIRED}: {@code deadline}, {@code queue_timeout}, {@code handoff}.
 *   <li>{@link #INVALID}: the client's input was refused before admission (4xx); no reason,
 *       except {@code unauthenticated} (401: no or an unknown key) and {@code forbidden} (403: the
 *       tenant may not use the model).
 *   <li>{@link #CANCELLED}: the client went away; {@code cancelled_phase} says where.
 * </ul>
 */
public enum Terminal {
  COMPLETED,
  FAILED,
  REFUSED,
  REJECTED,
  EXPIRED,
  INVALID,
  CANCELLED;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
