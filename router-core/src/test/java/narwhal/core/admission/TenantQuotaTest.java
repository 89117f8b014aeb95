package narwhal.core.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.testing.ManualScheduler;
import org.junit.jupiter.api.Test;

/** A tenant's own limits inside admission: seats, queue share and rate, on a manual clock. */
class TenantQuotaTest {

  private static final long NO_DEADLINE = TimeUnit.HOURS.toNanos(1);

  private final ManualScheduler loop = new ManualScheduler();

  private static Admission admission(int max, int queue) {
    return new Admission(new AdmissionLimits(max, queue, TimeUnit.SECONDS.toNanos(10)));
  }

  @Test
  void aTenantAtItsInFlightLimit_isRefused_whileAnotherTenantIsSeated() {
    Admission a = admission(10, 0);
    TenantQuota busy = new TenantQuota("busy", 2, 0, null);
    TenantQuota other = new TenantQuota("other", 2, 0, null);
    Seat s1 = a.acquire(loop, NO_DEADLINE, busy);
    a.acquire(loop, NO_DEADLINE, busy);

    Seat refused = a.acquire(loop, NO_DEADLINE, busy);
    Seat seated = a.acquire(loop, NO_DEADLINE, other);

    assertThat(refused.refusal()).isEqualTo(Seat.Refusal.TENANT_INFLIGHT);
    assertThat(refused.refusal().tenantLimit()).isTrue();
    assertThat(seated.isSeated()).isTrue();
    assertThat(a.inFlight()).isEqualTo(3);
    s1.release();
    s1.release(); // once only
    assertThat(a.acquire(loop, NO_DEADLINE, busy).isSeated()).as("a released seat is the tenant's again").isTrue();
    assertThat(a.acquire(loop, NO_DEADLINE, busy).refusal()).isEqualTo(Seat.Refusal.TENANT_INFLIGHT);
  }

  @Test
  void aTenantFillingItsQueueShare_isRefused_andTheQueueKeepsRoomForOthers() {
    Admission a = admission(1, 4);
    TenantQuota greedy = new TenantQuota("greedy", 0, 2, null);
    TenantQuota other = new TenantQuota("other", 0, 2, null);
    Seat holder = a.acquire(loop, NO_DEADLINE, other);
    Seat q1 = a.acquire(loop, NO_DEADLINE, greedy);
    a.acquire(loop, NO_DEADLINE, greedy);

    Seat third = a.acquire(loop, NO_DEADLINE, greedy);
    Seat otherQueued = a.acquire(loop, NO_DEADLINE, other);

    assertThat(third.refusal()).isEqualTo(Seat.Refusal.TENANT_QUEUE);
    assertThat(otherQueued.isQueued()).isTrue();
    List<String> seated = new ArrayList<>();
    q1.whenSeated(() -> seated.add("q1"), () -> seated.add("q1 expired"));
    holder.release();
    loop.runPending();
    assertThat(seated).containsExactly("q1");
    assertThat(a.acquire(loop, NO_DEADLINE, greedy).isQueued()).as("q1 left the queue: a place is free").isTrue();
  }

  @Test
  void anExpiredWait_givesTheTenantsPlacesBack() {
    Admission a = admission(1, 2);
    TenantQuota t = new TenantQuota("t", 2, 1, null);
    a.acquire(loop, NO_DEADLINE, null);
    Seat queued = a.acquire(loop, NO_DEADLINE, t);
    queued.whenSeated(() -> {}, () -> {});

    loop.advance(11, TimeUnit.SECONDS);

    assertThat(a.queued()).isZero();
    assertThat(a.acquire(loop, NO_DEADLINE, t).isQueued()).isTrue();
    assertThat(a.acquire(loop, NO_DEADLINE, t).refusal()).as("its one queue place is taken again")
        .isEqualTo(Seat.Refusal.TENANT_QUEUE);
  }

  @Test
  void aTenantOverItsRate_isRefusedWithTheWaitForItsNextToken_andAFleetRefusalTakesNoToken() {
    Admission a = admission(1, 0);
    TenantQuota t = new TenantQuota("t", 0, 0, new TokenBucket(1, 1));
    Seat first = a.acquire(loop, NO_DEADLINE, t);
    Seat fleetFull = a.acquire(loop, NO_DEADLINE, new TenantQuota("u", 0, 0, new TokenBucket(1, 1)));
    first.release();

    Seat second = a.acquire(loop, NO_DEADLINE, t);
    assertThat(fleetFull.refusal()).isEqualTo(Seat.Refusal.INFLIGHT_LIMIT);
    assertThat(second.refusal()).isEqualTo(Seat.Refusal.TENANT_RATE);
    assertThat(second.retryAfterNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    assertThat(a.inFlight()).isZero();

    Seat otherTenant = a.acquire(loop, NO_DEADLINE, new TenantQuota("u", 0, 0, new TokenBucket(1, 1)));
    assertThat(otherTenant.isSeated()).as("another tenant's bucket is its own").isTrue();
    otherTenant.release();
    loop.advance(1, TimeUnit.SECONDS);
    assertThat(a.acquire(loop, NO_DEADLINE, t).isSeated()).isTrue();
  }

  @Test
  void aShareOfTheSeats_isTheLimitHere_neverSetBelowTheSeatsInUse_andRefusalsAreReported() {
    Admission a = admission(10, 0);
    List<ShareDemand.Kind> demands = new ArrayList<>();
    TenantQuota t = new TenantQuota("t", 12, 0, null);
    t.reportDemandTo((q, kind) -> demands.add(kind));
    assertThat(a.resizeTenantSeats(t, 2)).isEqualTo(2);
    Seat s1 = a.acquire(loop, NO_DEADLINE, t);
    a.acquire(loop, NO_DEADLINE, t);
    assertThat(a.acquire(loop, NO_DEADLINE, t).refusal()).isEqualTo(Seat.Refusal.TENANT_INFLIGHT);
    assertThat(demands).containsExactly(ShareDemand.Kind.SEATS);

    // Giving seats back: never below the two in use, so the sum of the shares in force holds.
    assertThat(a.resizeTenantSeats(t, 0)).isEqualTo(2);
    s1.release();
    assertThat(a.tenantHeld(t)).isEqualTo(1);
    assertThat(a.acquire(loop, NO_DEADLINE, t).isSeated()).as("its share is still 2").isTrue();
    assertThat(a.resizeTenantSeats(t, 5)).isEqualTo(5);
    assertThat(a.tenantSeatLimit(t)).isEqualTo(5);
  }

  @Test
  void aShareOfTheRate_dropsTokensAboveItsBurstAtOnce_andRefillsAtItsShare() {
    Admission a = admission(10, 0);
    List<ShareDemand.Kind> demands = new ArrayList<>();
    TenantQuota t = new TenantQuota("t", 0, 0, new TokenBucket(10, 10));
    t.reportDemandTo((q, kind) -> demands.add(kind));
    a.acquire(loop, NO_DEADLINE, t).release(); // the bucket starts full (10), one taken
    a.rescaleTenantRate(t, 0.2, loop.nanoTime()); // 2 a second, burst 2: 9 tokens become 2
    assertThat(a.acquire(loop, NO_DEADLINE, t).isSeated()).isTrue();
    assertThat(a.acquire(loop, NO_DEADLINE, t).isSeated()).isTrue();
    Seat refused = a.acquire(loop, NO_DEADLINE, t);
    assertThat(refused.refusal()).isEqualTo(Seat.Refusal.TENANT_RATE);
    assertThat(refused.retryAfterNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
    assertThat(demands).containsExactly(ShareDemand.Kind.RATE);

    a.rescaleTenantRate(t, 0, loop.nanoTime()); // a share of none: refused, asked to retry in a second
    loop.advance(10, TimeUnit.SECONDS);
    assertThat(a.acquire(loop, NO_DEADLINE, t).retryAfterNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(1));
  }
}
