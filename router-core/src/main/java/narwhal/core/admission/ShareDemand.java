package narwhal.core.admission;

/**
 * Told, under the admission lock, each time a tenant's request is refused because this router's
 * share of the tenant's seats or rate is used up: router replicas that share a tenant's budget
 * then ask the others for more. Must only note the demand and return (never block, never call
 * back into admission).
 */
@FunctionalInterface
public interface ShareDemand {

  /** Which of a tenant's limits refused the request. */
  enum Kind { SEATS, RATE }

  void atLimit(TenantQuota quota, Kind kind);

  ShareDemand NONE = (quota, kind) -> {};
}
