package narwhal.core.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import narwhal.config.AdmissionMode;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.fleet.Fleet;
import narwhal.core.placement.PlacementCost;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.profile.ProfileBook;
import org.junit.jupiter.api.Test;

/**
 * Predictive admission's price and verdict, value by value: elapsed + backlog + own prefill
 * against {@code slo.ttft_s · (1 + admission_margin)}, refused only over the budget, {@code
 * prompt} when the prompt alone misses it (no Retry-After), {@code queue} otherwise with a
 * Retry-After of the excess rounded up; unprofiled engines and {@code open} admission unpriced.
 */
class PredictiveAdmissionTest {

  /** 1 ms per prompt token. */
  private static final PrefillModel MS_PER_TOKEN = new PrefillModel(0, 0.001, 0, 1, 100_000);
  private static final DecodeModel DECODE = new DecodeModel(0.01, 0, 0, 1, 1);

  private final ProfileBook book = ProfileBook.empty();
  private final Fleet fleet = new Fleet(List.of(
      EngineSpec.of("p1", "http://127.0.0.1:8000", EngineRole.PREFILL),
      EngineSpec.of("p2", "http://127.0.0.1:8001", EngineRole.PREFILL)));
  private final EngineState p1 = fleet.get("p1");

  PredictiveAdmissionTest() {
    book.put(new EngineProfile("p1", "g1", MS_PER_TOKEN, DECODE, 0.01, 0.02));
  }

  private PredictiveAdmission admission(double ttftS, double margin) {
    return new PredictiveAdmission(AdmissionMode.PREDICTIVE, ttftS, margin,
        new PlacementCost(book, SloConfig.of(ttftS, 0.05)));
  }

  @Test
  void price_isElapsedPlusTheEnginesBacklogPlusItsOwnPrefill() {
    p1.reservePrefill(250);
    p1.reservePrefill(125);

    AdmissionPrice price = admission(1.0, 0).price(p1, 500, 0.0625);

    assertThat(price.backlogS()).isCloseTo(0.375, within(1e-12));
    assertThat(price.ownPrefillS()).isCloseTo(0.5, within(1e-12));
    assertThat(price.elapsedS()).isEqualTo(0.0625);
    assertThat(price.priceS()).isCloseTo(0.9375, within(1e-12));
    assertThat(price.journalFields()).containsOnlyKeys("backlog_s", "own_prefill_s", "elapsed_s", "price_s");
  }

  @Test
  void atTheBudget_isAdmitted_justOverIt_isRefused() {
    PredictiveAdmission a = admission(1.0, 0);
    p1.reservePrefill(500);

    assertThat(a.price(p1, 500, 0).refusal(a.budgetS())).as("0.5 + 0.5 = 1.0 s").isNull();
    assertThat(a.price(p1, 501, 0).refusal(a.budgetS())).as("1.001 s").isEqualTo(RefusalCause.QUEUE);
    assertThat(a.price(p1, 500, 0.001).refusal(a.budgetS())).as("waiting counts").isEqualTo(RefusalCause.QUEUE);
  }

  @Test
  void theMargin_widensTheBudget() {
    PredictiveAdmission a = admission(1.0, 0.5);
    p1.reservePrefill(1000);

    assertThat(a.budgetS()).isEqualTo(1.5);
    assertThat(a.price(p1, 500, 0).refusal(a.budgetS())).as("1.5 s").isNull();
    assertThat(a.price(p1, 501, 0).refusal(a.budgetS())).isEqualTo(RefusalCause.QUEUE);
  }

  @Test
  void aPromptThatAloneMissesTheBudget_isRefusedForItsPrompt_evenOnAnIdleEngine() {
    PredictiveAdmission a = admission(1.0, 0);

    AdmissionPrice alone = a.price(p1, 1001, 0);

    assertThat(alone.backlogS()).isZero();
    assertThat(alone.refusal(a.budgetS())).isEqualTo(RefusalCause.PROMPT);
    assertThat(RefusalCause.PROMPT.wireName()).isEqualTo("prompt");
    assertThat(RefusalCause.QUEUE.wireName()).isEqualTo("queue");
  }

  @Test
  void retryAfter_isTheExcessOverTheBudget_roundedUp_atLeastOne() {
    assertThat(new AdmissionPrice(0.2, 0.9, 0).retryAfterSeconds(1.0)).as("0.1 s over").isEqualTo(1);
    assertThat(new AdmissionPrice(1.0, 0.5, 0).retryAfterSeconds(1.0)).as("0.5 s over").isEqualTo(1);
    assertThat(new AdmissionPrice(2.0, 0.5, 0).retryAfterSeconds(1.0)).as("1.5 s over").isEqualTo(2);
    assertThat(new AdmissionPrice(3.0, 0.5, 0.5).retryAfterSeconds(1.0)).as("3 s over").isEqualTo(3);
    assertThat(new AdmissionPrice(2.25, 0.5, 0).retryAfterSeconds(1.5)).as("1.25 s over a wider budget")
        .isEqualTo(2);
  }

  @Test
  void anEngineWithoutAProfile_isNotPriced() {
    PredictiveAdmission a = admission(1.0, 0);
    EngineState p2 = fleet.get("p2");
    p2.reservePrefill(100_000);

    assertThat(a.price(p2, 100_000, 10)).isNull();
    assertThat(a.price(p2, 100_000, 10)).as("every time, logged once").isNull();
  }

  @Test
  void openAdmission_pricesNothing() {
    PredictiveAdmission open = new PredictiveAdmission(AdmissionMode.OPEN, 1.0, 0,
        new PlacementCost(book, SloConfig.of(1.0, 0.05)));

    assertThat(open.enabled()).isFalse();
    assertThat(open.price(p1, 100_000, 10)).isNull();
  }
}
