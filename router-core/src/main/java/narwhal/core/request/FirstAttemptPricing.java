package narwhal.core.request;

import narwhal.api.RouterError;
import narwhal.core.admission.AdmissionPrice;
import narwhal.core.admission.PredictiveAdmission;
import narwhal.core.admission.RefusalCause;
import narwhal.core.fleet.EngineState;
import org.jspecify.annotations.Nullable;

/**
 * Predictive admission for one request: it prices the first attempt on the producer placement
 * chose and may refuse it (429); a retry was admitted already and is never priced. Keeps the price
 * for the journal row.
 */
final class FirstAttemptPricing {

  /** A refusal: the journal reason (the cause's name) and the client's 429. */
  record Refusal(String reason, RouterError error) {}

  private final PredictiveAdmission predictive;
  private @Nullable AdmissionPrice price;
  private boolean checked;

  FirstAttemptPricing(PredictiveAdmission predictive) {
    this.predictive = predictive;
  }

  /**
   * Prices the request on {@code producer} the first time it is asked, and returns the refusal when
   * the projected time to first token is over the budget; null otherwise, and on every later call.
   *
   * @param cachedTokens the leading prompt tokens cache-aware placement expects the producer to hold
   *     (priced as not computed again); 0 without it
   * @param waitedS the time the request has already spent since arrival
   */
  @Nullable Refusal check(EngineState producer, long promptTokens, long cachedTokens, double waitedS) {
    if (checked) {
      return null;
    }
    checked = true;
    price = predictive.price(producer, promptTokens, cachedTokens, waitedS);
    RefusalCause cause = price == null ? null : price.refusal(predictive.budgetS());
    if (cause == null) {
      return null;
    }
    return new Refusal(cause.wireName(),
        AdmissionErrors.priced(price, cause, predictive, producer.iid(), promptTokens));
  }

  /** The price's journal fields, or null when the request was not priced (open admission, no profile). */
  java.util.@Nullable Map<String, Object> journalFields() {
    return price == null ? null : price.journalFields();
  }
}
