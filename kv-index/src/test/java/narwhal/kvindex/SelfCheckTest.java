package narwhal.kvindex;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The self-check's threshold, window and recovery. */
class SelfCheckTest {

  @Test
  void agreementNeverRaisesIt() {
    SelfCheck check = new SelfCheck(0.2, 4);
    for (int i = 0; i < 10; i++) {
      assertThat(check.record(96, 96)).isEqualTo(SelfCheck.Change.NONE);
    }
    assertThat(check.divergence()).isZero();
  }

  @Test
  void aSustainedDivergence_marksItSuspectOnce_andAgreementClearsIt() {
    SelfCheck check = new SelfCheck(0.2, 4);
    // An index that predicts nothing while the engine reports hits (undecodable events, say).
    assertThat(check.record(0, 96)).isEqualTo(SelfCheck.Change.NONE); // window not full yet
    check.record(0, 96);
    check.record(0, 96);
    assertThat(check.record(0, 96)).isEqualTo(SelfCheck.Change.BECAME_SUSPECT);
    assertThat(check.record(0, 96)).isEqualTo(SelfCheck.Change.NONE);
    assertThat(check.suspect()).isTrue();
    for (int i = 0; i < 3; i++) {
      check.record(96, 96);
    }
    assertThat(check.record(96, 96)).isEqualTo(SelfCheck.Change.RECOVERED);
    assertThat(check.suspect()).isFalse();
  }

  @Test
  void anOccasionalMiss_underTheThreshold_isTolerated() {
    SelfCheck check = new SelfCheck(0.2, 10);
    for (int i = 0; i < 9; i++) {
      check.record(100, 100);
    }
    assertThat(check.record(100, 84)).isEqualTo(SelfCheck.Change.NONE); // 16 of 1000
    assertThat(check.divergence()).isCloseTo(0.016, org.assertj.core.api.Assertions.within(1e-9));
  }
}
