package narwhal.config;

import java.util.List;
import java.util.Objects;

/**
 * One tenant of the {@code tenants} section: who may call the router with which keys, which
 * models, and how much of the fleet it may hold.
 *
 * @param name the tenant's name: its label in metrics and its field in journal rows
 * @param keys its API keys, stored as salted hashes
 * @param models the model names it may ask for; empty means every model the router serves
 * @param maxInFlight the most requests it may have admitted at once; 0 means no limit of its own
 * @param ratePerS its sustained request rate (a token bucket refilled at this rate); 0 = no limit
 * @param burst the bucket's size: how many requests may arrive at once after a quiet spell
 * @param queueShare the fraction of {@code serving.queue_capacity} its requests may occupy
 */
public record TenantConfig(
    String name, List<ApiKeyHash> keys, List<String> models, int maxInFlight, double ratePerS, double burst,
    double queueShare) {

  public TenantConfig {
    Objects.requireNonNull(name, "name");
    keys = List.copyOf(keys);
    models = List.copyOf(models);
  }

  /** True when this tenant may ask for {@code model}. */
  public boolean allows(String model) {
    return models.isEmpty() || models.contains(model);
  }
}
