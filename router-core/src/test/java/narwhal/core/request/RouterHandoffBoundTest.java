package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import narwhal.config.EngineContract;
import narwhal.config.FleetConfig;
import narwhal.api.RouterError;
import narwhal.core.request.RouterFixture.Client;
import narwhal.testing.OpenAiWire;
import org.junit.jupiter.api.Test;

/**
 * The KV handoff age bound (lease − lease//6, from engine_contract.kv_lease_duration_s), counted from
 * the start of the producer HTTP leg and checked at decode dispatch.
 */
class RouterHandoffBoundTest {

  private static FleetConfig withLease(double leaseS, int maxAttempts) {
    FleetConfig c = RouterFixture.twoByTwo(s -> s.withMaxAttempts(maxAttempts));
    return c.withEngineContract(EngineContract.builder().kvLeaseDurationS(leaseS).build());
  }

  @Test
  void handoffAgeExactlyAtBound_decodeIsDispatched() {
    RouterFixture r = new RouterFixture(withLease(30, 1));
    Client c = r.submitCompletion();

    r.loop.advanceMillis(25_000);
    r.prefillOk(r.call(0));

    assertThat(r.transport.calls()).hasSize(2);
    assertThat(r.iidOf(r.call(1))).isEqualTo("d1");
    assertThat(c.sink().log).isEmpty();
  }

  @Test
  void handoffOverBound_noAttemptsLeft_504HandoffExpiredWithoutDecode() {
    RouterFixture r = new RouterFixture(withLease(30, 1));
    Client c = r.submitCompletion();

    r.loop.advanceMillis(25_001);
    r.prefillOk(r.call(0));

    assertThat(r.transport.calls()).hasSize(1);
    RouterError error = c.sink().error();
    assertThat(error.status()).isEqualTo(504);
    assertThat(error.type()).isEqualTo("handoff_expired");
    assertThat(error.code()).isEqualTo("handoff_expired");
    assertThat(error.message()).startsWith("KV handoff expired before decode dispatch");
    assertThat(r.residentPrefill()).isZero();
    assertThat(r.residentDecode()).isZero();
    assertThat(r.row()).containsEntry("terminal", "expired").containsEntry("reason", "handoff");
  }

  @Test
  void handoffOverBound_attemptsLeft_freshPrefillOnAnotherProducer() {
    RouterFixture r = new RouterFixture(withLease(30, 2));
    Client c = r.submitCompletion();
    r.loop.advanceMillis(26_000);
    r.prefillOk(r.call(0));
    assertThat(r.transport.calls()).hasSize(1);

    r.loop.advanceMillis(1000);

    assertThat(r.transport.calls()).hasSize(2);
    assertThat(r.iidOf(r.call(1))).isEqualTo("p2");
    assertThat(RouterFixture.backendId(r.call(1))).isEqualTo(c.handle().requestId() + "-p2");
    r.prefillOk(r.call(1));
    r.call(2).sse().event(OpenAiWire.completionToken("a")).event("[DONE]").end();
    assertThat(c.sink().log).containsExactly("start", "token:a", "complete");
    assertThat(OpenAiWire.tree(r.call(2).body()).path("kv_handoff").path("engine_id").asText())
        .isEqualTo("engine-p2");
    assertThat(r.row()).containsEntry("attempts", 2).containsEntry("prefill_iid", "p2");
  }

  @Test
  void handoffBound_leaseNotAMultipleOfSix_isLeaseMinusFloorOfASixth() {
    // 10 s lease: 10 − 10//6 = 9 s, as EngineContract.handoffBoundS() and the docs compute it.
    RouterFixture r = new RouterFixture(withLease(10, 1));
    Client c = r.submitCompletion();

    r.loop.advanceMillis(9_000);
    r.prefillOk(r.call(0));

    assertThat(c.sink().log).isEmpty();
    assertThat(r.transport.calls()).hasSize(2);
  }

  @Test
  void handoffBound_noContract_isUnbounded() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo());
    r.submitCompletion();

    r.loop.advanceMillis(119_000);
    r.prefillOk(r.call(0));

    assertThat(r.transport.calls()).hasSize(2);
  }
}
