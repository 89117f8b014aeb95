package narwhal.core.admission;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What predictive admission projected one request's time to first token to be, in seconds, on
 * the prefill engine placement chose: what it has waited since it arrived ({@code elapsed_s}:
 * the admission queue and counting its prompt), the prefill work already resident on that engine
 * ({@code backlog_s}) and its own prefill ({@code own_prefill_s}). The journal's {@code
 * admission_price}.
 */
public record AdmissionPrice(double backlogS, double ownPrefillS, double elapsedS) {

  /** The projected time to first token: elapsed plus backlog plus own prefill. */
  public double priceS() {
    return elapsedS + backlogS + ownPrefillS;
  }

  /**
   * Why a request at this price is refused under {@code budgetS}, or null when it fits (a price
   * exactly at the budget fits): {@link RefusalCause#PROMPT} when its own prefill alone is over
   * the budget, so waiting cannot help; else {@link RefusalCause#QUEUE}.
   */
  public @Nullable RefusalCause refusal(double budgetS) {
    if (priceS() <= budgetS) {
      return null;
    }
    return ownPrefillS > budgetS ? RefusalCause.PROMPT : RefusalCause.QUEUE;
  }

  /**
   * The {@code Retry-After} of a {@link RefusalCause#QUEUE} refusal, in whole seconds: how far the
   * price is over the budget, rounded up, at least 1. The backlog drains in real time, so a request
   * like this one, waiting as long again, fits once that much of it has run.
   */
  public int retryAfterSeconds(double budgetS) {
    double over = Math.ceil(priceS() - budgetS);
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, over));
  }

  /** The journal's {@code admission_price} object. */
  public Map<String, Object> journalFields() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("backlog_s", backlogS);
    m.put("own_prefill_s", ownPrefillS);
    m.put("elapsed_s", elapsedS);
    m.put("price_s", priceS());
    return m;
  }
}
