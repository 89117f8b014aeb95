package narwhal.core.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.Test;

/** Seats, the FIFO queue and its timeout, and draining, on a manual clock. */
class AdmissionTest {

  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final long NO_DEADLINE = 3600 * SECOND;

  private final ManualScheduler loop = new ManualScheduler();
  private final List<String> log = new ArrayList<>();

  private Admission admission(int max, int queue, double timeoutS) {
    return new Admission(new AdmissionLimits(max, queue, Math.round(timeoutS * 1e9)));
  }

  private void watch(Seat seat, String name) {
    seat.whenSeated(() -> log.add(name + " seated"), () -> log.add(name + " expired"));
  }

  @Test
  void belowTheLimit_seatsAtOnce_andReleaseReturnsTheSeatOnce() {
    Admission a = admission(2, 0, 0);
    Seat s1 = a.acquire(loop, NO_DEADLINE);
    Seat s2 = a.acquire(loop, NO_DEADLINE);

    assertThat(s1.isSeated()).isTrue();
    assertThat(s2.isSeated()).isTrue();
    assertThat(a.inFlight()).isEqualTo(2);
    s1.release();
    s1.release();
    assertThat(a.inFlight()).isEqualTo(1);
    s2.release();
    assertThat(a.inFlight()).isZero();
  }

  @Test
  void atTheLimit_withoutAQueue_refusesInflightLimit() {
    Admission a = admission(1, 0, 0);
    a.acquire(loop, NO_DEADLINE);

    Seat refused = a.acquire(loop, NO_DEADLINE);

    assertThat(refused.refusal()).isEqualTo(Seat.Refusal.INFLIGHT_LIMIT);
    refused.release();
    assertThat(a.inFlight()).isEqualTo(1);
  }

  @Test
  void queue_isFifo_andAReleasedSeatPassesToItsHead() {
    Admission a = admission(1, 2, 10);
    Seat first = a.acquire(loop, NO_DEADLINE);
    Seat second = a.acquire(loop, NO_DEADLINE);
    Seat third = a.acquire(loop, NO_DEADLINE);
    watch(second, "second");
    watch(third, "third");
    assertThat(a.acquire(loop, NO_DEADLINE).refusal()).isEqualTo(Seat.Refusal.INFLIGHT_LIMIT);
    assertThat(a.queued()).isEqualTo(2);

    loop.advanceMillis(250);
    first.release();
    loop.runPending();

    assertThat(log).containsExactly("second seated");
    assertThat(a.inFlight()).isEqualTo(1);
    assertThat(second.queueWaitNanos(loop.nanoTime())).isEqualTo(SECOND / 4);
    second.release();
    loop.runPending();
    third.release();
    assertThat(log).containsExactly("second seated", "third seated");
    assertThat(a.inFlight()).isZero();
    assertThat(a.queued()).isZero();
    assertThat(loop.pendingTasks()).isZero();
  }

  @Test
  void queueTimeout_expiresTheWait_exactlyAtTheTimeout() {
    Admission a = admission(1, 1, 2);
    a.acquire(loop, NO_DEADLINE);
    Seat waiting = a.acquire(loop, NO_DEADLINE);
    watch(waiting, "waiting");

    loop.advanceMillis(1999);
    assertThat(log).isEmpty();
    loop.advanceMillis(1);

    assertThat(log).containsExactly("waiting expired");
    assertThat(a.queued()).isZero();
    assertThat(a.inFlight()).isEqualTo(1);
    waiting.release();
    assertThat(a.inFlight()).isEqualTo(1);
  }

  @Test
  void queueWait_isAlsoBoundedByTheRequestsRemainingDeadline() {
    Admission a = admission(1, 1, 30);
    a.acquire(loop, NO_DEADLINE);
    Seat waiting = a.acquire(loop, SECOND);
    watch(waiting, "waiting");

    loop.advanceMillis(1000);

    assertThat(log).containsExactly("waiting expired");
  }

  @Test
  void expiredBeforeItsCallbackWasRegistered_stillReportsExpiry() {
    Admission a = admission(1, 1, 1);
    a.acquire(loop, NO_DEADLINE);
    Seat waiting = a.acquire(loop, NO_DEADLINE);
    loop.advanceMillis(1000);

    watch(waiting, "late");
    loop.runPending();

    assertThat(log).containsExactly("late expired");
  }

  @Test
  void leavingTheQueue_cancelsItsTimer_andTheSeatGoesToTheNext() {
    Admission a = admission(1, 2, 5);
    Seat first = a.acquire(loop, NO_DEADLINE);
    Seat leaving = a.acquire(loop, NO_DEADLINE);
    Seat next = a.acquire(loop, NO_DEADLINE);
    watch(leaving, "leaving");
    watch(next, "next");

    leaving.release();
    first.release();
    loop.runPending();

    assertThat(log).containsExactly("next seated");
    next.release();
    assertThat(a.inFlight()).isZero();
    assertThat(loop.pendingTasks()).isZero();
  }

  @Test
  void seatedCallback_alwaysRunsAsASeparateTask() {
    Admission a = admission(1, 0, 0);
    Seat seat = a.acquire(loop, NO_DEADLINE);

    watch(seat, "seat");

    assertThat(log).isEmpty();
    loop.runPending();
    assertThat(log).containsExactly("seat seated");
  }

  @Test
  void drain_refusesNewcomers_letsHoldersFinish_thenIsIdle() {
    Admission a = admission(1, 1, 5);
    Seat holder = a.acquire(loop, NO_DEADLINE);
    Seat waiting = a.acquire(loop, NO_DEADLINE);

    a.drain();

    assertThat(a.acquire(loop, NO_DEADLINE).refusal()).isEqualTo(Seat.Refusal.DRAINING);
    assertThat(a.whenIdle()).isNotDone();
    holder.release();
    assertThat(waiting.isSeated()).isTrue();
    assertThat(a.whenIdle()).isNotDone();
    waiting.release();
    assertThat(a.whenIdle()).isDone();
  }

  @Test
  void drain_withNothingInFlight_isIdleAtOnce() {
    Admission a = admission(3, 0, 0);
    a.drain();

    assertThat(a.whenIdle()).isDone();
    assertThat(a.isDraining()).isTrue();
  }
}
