package narwhal.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** serving.retry_budget credits, spent one per retry, earned back by serving.retry_replenish per success. */
class RetryBudgetTest {

  @Test
  void startsFull_andEachRetrySpendsOneWholeCredit_untilExhausted() {
    RetryBudget budget = new RetryBudget(3, 0.1);
    assertThat(budget.available()).isEqualTo(3.0);

    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.available()).isZero();

    assertThat(budget.tryAcquire()).isFalse();
    assertThat(budget.available()).isZero();
  }

  @Test
  void successesReplenish_aRetryNeedsAWholeCreditAgain() {
    RetryBudget budget = new RetryBudget(1, 0.25);
    assertThat(budget.tryAcquire()).isTrue();

    for (int i = 0; i < 3; i++) {
      budget.onSuccess();
      assertThat(budget.tryAcquire()).as("after %d successes", i + 1).isFalse();
    }
    assertThat(budget.available()).isEqualTo(0.75);

    budget.onSuccess();
    assertThat(budget.available()).isEqualTo(1.0);
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.available()).isZero();
  }

  @Test
  void tenthsAddUpExactly_withoutFloatingPointDrift() {
    RetryBudget budget = new RetryBudget(1, 0.1);
    assertThat(budget.tryAcquire()).isTrue();
    for (int i = 0; i < 9; i++) {
      budget.onSuccess();
    }
    assertThat(budget.tryAcquire()).isFalse();
    budget.onSuccess();
    assertThat(budget.tryAcquire()).isTrue();
  }

  @Test
  void replenishing_neverExceedsTheBudget() {
    RetryBudget budget = new RetryBudget(2, 0.5);
    for (int i = 0; i < 10; i++) {
      budget.onSuccess();
    }
    assertThat(budget.available()).isEqualTo(2.0);
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isTrue();
    assertThat(budget.tryAcquire()).isFalse();
  }

  @Test
  void zeroBudget_neverRetries_andFractionalBudget_holdsNoWholeCredit() {
    RetryBudget none = new RetryBudget(0, 0.1);
    none.onSuccess();
    assertThat(none.tryAcquire()).isFalse();

    RetryBudget half = new RetryBudget(0.5, 1);
    half.onSuccess();
    assertThat(half.available()).isEqualTo(0.5);
    assertThat(half.tryAcquire()).isFalse();
  }

  @Test
  void zeroReplenish_spentCreditsNeverComeBack() {
    RetryBudget budget = new RetryBudget(1, 0);
    assertThat(budget.tryAcquire()).isTrue();
    for (int i = 0; i < 100; i++) {
      budget.onSuccess();
    }
    assertThat(budget.tryAcquire()).isFalse();
  }
}
