package narwhal.core.control;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.core.fleet.ArrivalTally.Arrivals;
import org.junit.jupiter.api.Test;

/** Evidence windows: when they close, when they are thin, and what D→P reads from them. */
class ArrivalEvidenceTest {

  private static final long S = 1_000_000_000L;

  /** Windows of 2–4 s needing 3 arrivals, from t = 0. */
  private final ArrivalEvidence evidence = new ArrivalEvidence(2 * S, 4 * S, 3, 0);

  private void tick(long atSeconds, long arrivals, long wantedEach) {
    evidence.add(atSeconds * S, new Arrivals(arrivals, 100 * arrivals, wantedEach * arrivals));
  }

  @Test
  void aWindowClosesAtItsSpan_onceItHoldsEnoughArrivals() {
    tick(1, 2, 10);
    assertThat(evidence.latest()).isNull();
    tick(2, 2, 10);
    assertThat(evidence.latest()).isEqualTo(new EvidenceWindow(2.0, 4, 40, true));
    assertThat(evidence.decodeToPrefill(0.25)).as("one window is not a trend").isEqualTo(Blocker.EVIDENCE);
    tick(3, 2, 10);
    tick(4, 2, 10);
    assertThat(evidence.decodeToPrefill(0.25)).isNull();
    assertThat(evidence.steady(0.25)).isTrue();
  }

  @Test
  void aWindowShortOfArrivals_growsToTheMaxSpan_thenClosesThin() {
    tick(2, 1, 10);
    assertThat(evidence.latest()).isNull();
    tick(3, 1, 10);
    assertThat(evidence.latest()).isNull();
    tick(4, 0, 10);
    assertThat(evidence.latest()).isEqualTo(new EvidenceWindow(4.0, 2, 20, false));
    tick(6, 3, 10);
    assertThat(evidence.decodeToPrefill(0.25)).as("the window before is thin").isEqualTo(Blocker.EVIDENCE);
    tick(8, 3, 10);
    assertThat(evidence.decodeToPrefill(0.25)).isNull();
  }

  @Test
  void decodeDemandRisingBeyondTheTolerance_blocks_andSteadyNeedsBothWaysAgreement() {
    tick(2, 4, 100);
    tick(4, 4, 126);
    assertThat(evidence.decodeToPrefill(0.25)).isEqualTo(Blocker.DEMAND_RISING);
    assertThat(evidence.steady(0.25)).isFalse();
    tick(6, 4, 125);
    assertThat(evidence.decodeToPrefill(0.25)).isNull();
    tick(8, 4, 90);
    assertThat(evidence.decodeToPrefill(0.25)).as("falling demand is no reason to wait").isNull();
    assertThat(evidence.steady(0.25)).as("but it is not steady").isFalse();
  }
}
