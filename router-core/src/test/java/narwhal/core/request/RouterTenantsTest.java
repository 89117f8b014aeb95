package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import narwhal.api.Authentication;
import narwhal.api.Caller;
import narwhal.config.ApiKeyHash;
import narwhal.config.FleetConfig;
import narwhal.config.TenantConfig;
import narwhal.config.TenantsConfig;
import narwhal.testing.OpenAiWire;
import narwhal.testing.RecordingSink;
import org.junit.jupiter.api.Test;

/**
 * The core's side of tenants: the caller's tenant on every row, a model the tenant may not use
 * (403), a tenant's own in-flight limit refused as {@code refused/tenant_inflight} while another
 * tenant is seated, and an unauthenticated caller journalled without a tenant.
 */
class RouterTenantsTest {

  private static final String KEY = "nwk_tenantA1_" + "k".repeat(43);

  private static FleetConfig withTenants(FleetConfig c) {
    ApiKeyHash hash = ApiKeyHash.of(KEY, new byte[16]);
    return c.withTenants(new TenantsConfig(List.of(
        new TenantConfig("a", List.of(hash), List.of(), 1, 0, 1, 1.0),
        new TenantConfig("b", List.of(ApiKeyHash.of("nwk_tenantB1_" + "k".repeat(43), new byte[16])),
            List.of("another-model"), 0, 0, 1, 1.0)), List.of()));
  }

  private final RouterFixture r = new RouterFixture(withTenants(RouterFixture.twoByTwo()));

  private RecordingSink submitAs(Caller caller) {
    return submit(r, caller);
  }

  @Test
  void aTenantAtItsInFlightLimit_isRefusedWithItsOwnCause_andTheRowsNameTheTenant() {
    RecordingSink first = submitAs(Caller.tenant("a"));
    RecordingSink second = submitAs(Caller.tenant("a"));

    assertThat(first.errors).isEmpty();
    assertThat(second.log).containsExactly("error:429:tenant_limit_error");
    assertThat(second.error().code()).isEqualTo("tenant_inflight_limit");
    assertThat(second.error().retryAfterSeconds()).isEqualTo(1);
    Map<String, Object> refused = r.journal.rows.get(0);
    assertThat(refused).containsEntry("terminal", "refused").containsEntry("reason", "tenant_inflight")
        .containsEntry("tenant", "a").containsEntry("status", 429);

    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("x")).event("[DONE]").end();
    assertThat(r.journal.rows.get(1)).containsEntry("terminal", "completed").containsEntry("tenant", "a");
    assertThat(r.router.admission().inFlight()).isZero();
    assertThat(r.router.metrics().registry().getCounters())
        .containsKey("narwhal_tenant_requests_total{tenant=\"a\",terminal=\"completed\"}");
    assertThat(r.router.metrics().registry().counter("narwhal_refused_total{cause=\"tenant_inflight\"}").getCount())
        .isEqualTo(1);
  }

  /**
   * Each tenant limit's refusal names the tenant, in the client's message and the journal's
   * {@code error} alike: a refused seat never counts against the tenant, but it still belongs to it.
   */
  @Test
  void everyTenantRefusal_namesTheTenant_inItsMessageAndItsRow() {
    ApiKeyHash unused = ApiKeyHash.of(KEY, new byte[16]);
    FleetConfig base = RouterFixture.twoByTwo();
    RouterFixture limited = new RouterFixture(base.withServing(base.serving().withMaxConnections(1).withQueue(3, 30))
        .withTenants(new TenantsConfig(List.of(
            new TenantConfig("seats", List.of(unused), List.of(), 1, 0, 1, 1.0),
            new TenantConfig("metered", List.of(unused), List.of(), 0, 0.001, 1, 1.0),
            new TenantConfig("queued", List.of(unused), List.of(), 0, 0, 1, 0.34)), List.of())));

    RecordingSink holder = submit(limited, Caller.tenant("seats"));
    RecordingSink overSeats = submit(limited, Caller.tenant("seats"));
    RecordingSink waiting = submit(limited, Caller.tenant("queued"));
    RecordingSink overShare = submit(limited, Caller.tenant("queued"));
    RecordingSink metered = submit(limited, Caller.tenant("metered"));
    RecordingSink overRate = submit(limited, Caller.tenant("metered"));

    assertThat(holder.errors).isEmpty();
    assertThat(waiting.errors).as("queued behind the holder").isEmpty();
    assertThat(metered.errors).as("queued behind the holder, its token taken").isEmpty();
    assertThat(overSeats.error().message())
        .startsWith("tenant seats has its limit of requests in flight (tenants max_in_flight)");
    assertThat(overShare.error().message())
        .startsWith("tenant queued fills its share of the admission queue (tenants queue_share");
    assertThat(overRate.error().message())
        .startsWith("tenant metered is over its request rate (tenants rate_per_s and burst); its next request is allowed in ");
    for (RecordingSink refused : List.of(overSeats, overShare, overRate)) {
      assertThat(refused.error().message()).doesNotContain("null");
    }
    assertThat(limited.journal.rows).filteredOn(row -> "refused".equals(row.get("terminal")))
        .extracting(row -> row.get("tenant") + " " + row.get("reason") + ": " + row.get("error"))
        .containsExactly(
            "seats tenant_inflight: " + overSeats.error().message(),
            "queued tenant_queue: " + overShare.error().message(),
            "metered tenant_rate: " + overRate.error().message());
  }

  private static RecordingSink submit(RouterFixture fixture, Caller caller) {
    RecordingSink sink = new RecordingSink();
    narwhal.api.Arrival arrival = narwhal.api.Arrival.now(fixture.loop, narwhal.api.FrontEnd.HTTP, caller, null, null,
        narwhal.api.TraceContext.NONE);
    fixture.router.submit(fixture.router.admit(arrival), fixture.completionRequest(), sink);
    fixture.loop.runPending();
    return sink;
  }

  @Test
  void aModelTheTenantMayNotUse_is403_beforeAnyEngineIsCalled() {
    RecordingSink sink = submitAs(Caller.tenant("b"));

    assertThat(sink.log).containsExactly("error:403:invalid_request_error");
    assertThat(sink.error().code()).isEqualTo("model_not_allowed");
    assertThat(r.transport.calls()).isEmpty();
    assertThat(r.router.admission().inFlight()).as("the seat is given back").isZero();
    assertThat(r.row()).containsEntry("terminal", "invalid").containsEntry("reason", "forbidden")
        .containsEntry("tenant", "b").containsEntry("status", 403);
    assertThat(r.router.metrics().registry().counter("narwhal_auth_failures_total{reason=\"model_not_allowed\"}")
        .getCount()).isEqualTo(1);
  }

  @Test
  void anUnauthenticatedCaller_isJournalledWithoutATenant_andCounted() {
    Authentication refused = r.router.authenticator().authenticate("Bearer nwk_unknown1_" + "x".repeat(43));
    r.router.rejectUnauthenticated(narwhal.api.Arrival.now(r.loop, narwhal.api.FrontEnd.HTTP, Caller.ANONYMOUS,
        "client-1", null, narwhal.api.TraceContext.NONE), refused);

    assertThat(refused.isAccepted()).isFalse();
    assertThat(r.row()).containsEntry("terminal", "invalid").containsEntry("reason", "unauthenticated")
        .containsEntry("tenant", null).containsEntry("status", 401).containsEntry("client_rid", "client-1");
    assertThat(r.router.metrics().registry().counter("narwhal_auth_failures_total{reason=\"unknown\"}").getCount())
        .isEqualTo(1);
    assertThat(r.router.authenticator().authenticate("Bearer " + KEY).caller()).isEqualTo(Caller.tenant("a"));
  }

  @Test
  void withoutTenants_rowsHaveANullTenant() {
    RouterFixture open = new RouterFixture(RouterFixture.twoByTwo());
    open.submitCompletion();
    open.prefillOk(open.call(0));
    open.call(1).sse().event(OpenAiWire.completionToken("x")).event("[DONE]").end();

    assertThat(open.row()).containsEntry("tenant", null).containsEntry("terminal", "completed");
    assertThat(open.router.authenticator().required()).isFalse();
  }
}
