package narwhal.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.Counter;
import java.util.List;
import java.util.Map;
import narwhal.api.AdmissionTicket;
import narwhal.api.RequestHandle;
import narwhal.api.RouterError;
import narwhal.core.health.EngineHealthTracker;
import narwhal.core.metrics.SeriesName;
import narwhal.core.request.RouterFixture.Client;
import narwhal.proto.v1.CompletionRequest;
import narwhal.testing.OpenAiWire;
import narwhal.testing.RecordingSink;
import org.junit.jupiter.api.Test;

/**
 * Admission through the whole core on a manual clock: the in-flight limit, the FIFO queue and its
 * timeout, draining, and the seat coming back on every path.
 */
class RouterAdmissionTest {

  private static final String BODY = "{\"model\":\"m\",\"prompt\":\"hello\",\"max_tokens\":8,\"stream\":true}";

  private RouterFixture fixture(int maxConnections, int queueCapacity, double queueTimeoutS) {
    return new RouterFixture(RouterFixture.twoByTwo(
        s -> s.withMaxConnections(maxConnections).withQueue(queueCapacity, queueTimeoutS).withMaxAttempts(1)));
  }

  /** Runs the request whose prefill is call {@code prefillCall} to completion with two tokens. */
  private static void complete(RouterFixture r, int prefillCall) {
    r.prefillOk(r.call(prefillCall));
    r.call(prefillCall + 1).sse().event(OpenAiWire.completionToken("a")).event(OpenAiWire.completionToken("b"))
        .event("[DONE]").end();
  }

  private static int inFlight(RouterFixture r) {
    return r.router.admission().inFlight();
  }

  @Test
  void completion_holdsASeatUntilTheEnd() {
    RouterFixture r = fixture(4, 0, 0);
    Client c = r.submitCompletion();
    assertThat(inFlight(r)).isEqualTo(1);

    complete(r, 0);

    assertThat(c.sink().log).endsWith("complete");
    assertThat(inFlight(r)).isZero();
    assertThat(r.row()).containsEntry("terminal", "completed").containsEntry("queue_wait_s", null)
        .containsEntry("decode_attempts", 1).containsEntry("run", r.router.runId());
  }

  @Test
  void overTheLimit_noQueue_is429WithRetryAfterAndJournalsRejected() {
    RouterFixture r = fixture(1, 0, 0);
    Client first = r.submitCompletion();
    Client second = r.submitCompletion();

    RouterError error = second.sink().error();
    assertThat(error.status()).isEqualTo(429);
    assertThat(error.type()).isEqualTo("server_overloaded_error");
    assertThat(error.retryAfterSeconds()).isEqualTo(1);
    assertThat(error.message()).startsWith("router in-flight limit reached");
    assertThat(r.transport.calls()).hasSize(1);
    assertThat(r.journal.rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("terminal", "rejected").containsEntry("reason", "inflight_limit")
        .containsEntry("status", 429).containsEntry("rid", second.handle().requestId()));

    complete(r, 0);
    assertThat(first.sink().log).endsWith("complete");
    assertThat(inFlight(r)).isZero();
  }

  @Test
  void queued_startsWhenASeatFrees_andRecordsItsWait() {
    RouterFixture r = fixture(1, 1, 5.0);
    r.submitCompletion();
    Client second = r.submitCompletion();
    assertThat(r.router.admission().queued()).isEqualTo(1);
    assertThat(r.transport.calls()).hasSize(1);

    r.loop.advanceMillis(300);
    complete(r, 0);
    r.loop.runPending();

    assertThat(r.router.admission().queued()).isZero();
    assertThat(r.transport.calls()).hasSize(3);
    complete(r, 2);
    assertThat(second.sink().log).endsWith("complete");
    assertThat(inFlight(r)).isZero();
    Map<String, Object> row = r.journal.rows.get(1);
    assertThat(row).containsEntry("rid", second.handle().requestId()).containsEntry("terminal", "completed")
        .containsEntry("queue_wait_s", 0.3);
    assertThat(r.loop.pendingTasks()).isZero();
  }

  @Test
  void queueTimeout_is504QueueExpired_journalsExpiredQueueTimeout() {
    RouterFixture r = fixture(1, 1, 2.0);
    r.submitCompletion();
    Client second = r.submitCompletion();

    r.loop.advanceMillis(1999);
    assertThat(second.sink().log).isEmpty();
    r.loop.advanceMillis(1);

    RouterError error = second.sink().error();
    assertThat(error.status()).isEqualTo(504);
    assertThat(error.type()).isEqualTo("queue_expired");
    assertThat(r.router.admission().queued()).isZero();
    assertThat(inFlight(r)).isEqualTo(1);
    assertThat(r.journal.rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("terminal", "expired").containsEntry("reason", "queue_timeout").containsEntry("status", 504)
        .containsEntry("queue_wait_s", 2.0).containsEntry("attempts", 0));
  }

  @Test
  void queueWait_isBoundedByTheRequestDeadline() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(
        s -> s.withMaxConnections(1).withQueue(1, 30.0).withRequestTimeoutS(3.0)));
    r.submitCompletion();
    Client second = r.submitCompletion();

    r.loop.advanceMillis(3000);

    assertThat(second.sink().error().status()).isEqualTo(504);
    assertThat(second.sink().error().type()).isEqualTo("request_expired");
    assertThat(r.router.admission().queued()).isZero();
    assertThat(r.journal.rows).filteredOn(row -> row.get("rid").equals(second.handle().requestId()))
        .singleElement().satisfies(row -> assertThat(row)
            .containsEntry("terminal", "expired").containsEntry("reason", "deadline")
            .containsEntry("queue_wait_s", 3.0));
  }

  @Test
  void queueWait_isBoundedByTheClientsDeadline_andExpiresAsTheRequestsOwn504() {
    RouterFixture r = fixture(1, 1, 30.0);
    r.submitCompletion();
    RecordingSink sink = new RecordingSink();
    narwhal.api.Arrival arrival = narwhal.api.Arrival.now(r.loop, narwhal.api.FrontEnd.GRPC,
        narwhal.api.Caller.ANONYMOUS, null, java.util.concurrent.TimeUnit.SECONDS.toNanos(2),
        narwhal.api.TraceContext.NONE);
    RequestHandle queued = r.router.submit(r.router.admit(arrival), OpenAiWire.completions(BODY), sink);
    r.loop.runPending();
    assertThat(r.router.admission().queued()).isEqualTo(1);

    r.loop.advanceMillis(2000);

    // Not a disconnect when the client's deadline passes: the request's own expiry.
    RouterError error = sink.error();
    assertThat(error.status()).isEqualTo(504);
    assertThat(error.code()).isEqualTo("request_expired");
    assertThat(error.message()).contains("(the client's deadline)");
    assertThat(r.router.admission().queued()).isZero();
    assertThat(r.journal.rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("rid", queued.requestId()).containsEntry("terminal", "expired")
        .containsEntry("reason", "deadline").containsEntry("status", 504).containsEntry("queue_wait_s", 2.0));
  }

  @Test
  void ticketExpiredBeforeSubmit_freesTheSeat_andJournalsExpiredDeadline() {
    RouterFixture r = fixture(1, 0, 0);
    AdmissionTicket.Admitted ticket = admit(r, "slow-upload");
    assertThat(inFlight(r)).isEqualTo(1);
    assertThat(ticket.deadline().bound()).isEqualTo(narwhal.time.Deadline.Bound.REQUEST_TIMEOUT);
    assertThat(ticket.deadline().remainingNanos(r.loop.nanoTime()))
        .isEqualTo(java.util.concurrent.TimeUnit.SECONDS.toNanos(600));

    r.loop.advanceMillis(600_000);
    ticket.expired(narwhal.api.ClientErrors.bodyTimeout(java.util.concurrent.TimeUnit.SECONDS.toNanos(600)));
    ticket.abandon(); // a ticket ends once

    assertThat(inFlight(r)).isZero();
    assertThat(r.journal.rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("rid", ticket.requestId()).containsEntry("client_rid", "slow-upload")
        .containsEntry("terminal", "expired").containsEntry("reason", "deadline").containsEntry("status", 408)
        .containsEntry("error_type", "request_timeout").containsEntry("duration_s", 600.0));
  }

  @Test
  void cancelWhileQueued_leavesTheQueue_journalsCancelledInQueue() {
    RouterFixture r = fixture(1, 1, 5.0);
    r.submitCompletion();
    Client second = r.submitCompletion();

    second.handle().cancel();

    assertThat(r.router.admission().queued()).isZero();
    assertThat(r.journal.rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("terminal", "cancelled").containsEntry("cancelled_phase", "queue"));
    complete(r, 0);
    r.loop.advanceMillis(10_000);
    assertThat(r.transport.calls()).hasSize(2);
    assertThat(inFlight(r)).isZero();
    assertThat(r.loop.pendingTasks()).isZero();
  }

  @Test
  void everyEndingPath_returnsTheSeat() {
    RouterFixture r = fixture(8, 0, 0);
    Client failed = r.submitCompletion();
    r.call(0).respond(500, OpenAiWire.errorBody(500, "boom"));
    assertThat(failed.sink().error().status()).isEqualTo(502);

    Client cancelled = r.submitCompletion();
    cancelled.handle().cancel();

    Client silent = r.submitCompletion();
    r.prefillOk(r.call(1));
    r.loop.advanceMillis(700_000); // the first-token timeout fails the decode leg
    assertThat(silent.sink().error().status()).isEqualTo(504);

    AdmissionTicket.Admitted invalid = admit(r, "client-1");
    invalid.invalid(RouterError.invalid("'n' must be 1", "n"));
    AdmissionTicket.Admitted gone = admit(r, null);
    gone.abandon();
    gone.abandon();

    assertThat(inFlight(r)).isZero();
    assertThat(r.journal.rows).extracting(row -> row.get("terminal"))
        .containsExactly("failed", "cancelled", "failed", "invalid", "cancelled");
    assertThat(r.journal.rows.get(3)).containsEntry("client_rid", "client-1").containsEntry("status", 400)
        .containsEntry("error_type", "invalid_request_error");
    assertThat(r.journal.rows.get(4)).containsEntry("cancelled_phase", "request");
    assertThat(r.residentPrefill() + r.residentDecode()).isZero();
  }

  @Test
  void deadline_returnsTheSeat() {
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withRequestTimeoutS(1.0)));
    Client c = r.submitCompletion();

    r.loop.advanceMillis(1000);

    assertThat(c.sink().error().type()).isEqualTo("request_expired");
    assertThat(inFlight(r)).isZero();
    assertThat(r.row()).containsEntry("terminal", "expired").containsEntry("reason", "deadline");
  }

  @Test
  void abort_byTheFrontEnd_journalsFailedWithItsReason() {
    RouterFixture r = fixture(2, 0, 0);
    Client c = r.submit(OpenAiWire.completions("{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":8}"));
    r.prefillOk(r.call(0));
    r.call(1).sse().event(OpenAiWire.completionToken("a"));

    c.handle().abort(RouterError.of(502, "decode", "decode", "too big"), "response_limit");

    assertThat(r.call(1).cancelled()).isTrue();
    assertThat(inFlight(r)).isZero();
    assertThat(r.row()).containsEntry("terminal", "failed").containsEntry("reason", "response_limit")
        .containsEntry("status", 502);
  }

  @Test
  void degradedMonitoring_refusesNewRequestsWith503Standby_untilItRecovers() {
    String[] degraded = {null};
    EngineHealthTracker health = new EngineHealthTracker() {
      @Override public void prefillSucceeded(String iid) {}
      @Override public void decodeSucceeded(String iid) {}
      @Override public void legFailed(narwhal.core.legs.EngineFailure f, String producerIid) {}
      @Override public boolean admissionHeld() { return false; }
      @Override public String degradedReason() { return degraded[0]; }
    };
    RouterFixture r = new RouterFixture(RouterFixture.twoByTwo(s -> s.withMaxAttempts(1)), fleet -> health);
    Client before = r.submitCompletion();

    degraded[0] = "monitoring degraded: health IllegalStateException";
    Client refused = r.submitCompletion();

    assertThat(r.router.notReadyReason()).isEqualTo("monitoring degraded: health IllegalStateException");
    RouterError error = refused.sink().error();
    assertThat(error.status()).isEqualTo(503);
    assertThat(error.type()).isEqualTo("standby");
    assertThat(error.retryAfterSeconds()).isEqualTo(1);
    assertThat(error.message()).doesNotContain("IllegalStateException");
    assertThat(r.journal.rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("terminal", "rejected").containsEntry("reason", "not_ready"));

    complete(r, 0);
    assertThat(before.sink().log).as("admitted before: carries on").endsWith("complete");
    degraded[0] = null;
    assertThat(r.router.ready()).isTrue();
    Client after = r.submitCompletion();
    complete(r, 2);
    assertThat(after.sink().log).endsWith("complete");
  }

  @Test
  void drain_refusesNewRequestsWith503_andCompletesWhenIdle() {
    RouterFixture r = fixture(4, 0, 0);
    Client inFlight = r.submitCompletion();

    r.router.drain();
    Client late = r.submitCompletion();

    assertThat(r.router.ready()).isFalse();
    RouterError error = late.sink().error();
    assertThat(error.status()).isEqualTo(503);
    assertThat(error.retryAfterSeconds()).isEqualTo(1);
    assertThat(r.journal.rows).singleElement().satisfies(row -> assertThat(row)
        .containsEntry("terminal", "rejected").containsEntry("reason", "not_ready"));
    assertThat(r.router.whenIdle()).isNotDone();

    complete(r, 0);

    assertThat(inFlight.sink().log).endsWith("complete");
    assertThat(r.router.whenIdle()).isDone();
  }

  @Test
  void refusedTicket_cancelledBeforeDelivery_tellsTheSinkNothing() {
    RouterFixture r = fixture(1, 0, 0);
    r.submitCompletion();
    RecordingSink sink = new RecordingSink();
    CompletionRequest request = OpenAiWire.completions(BODY);
    RequestHandle handle = r.router.submit(r.router.admit(r.arrival(narwhal.api.FrontEnd.HTTP)), request, sink);

    handle.cancel();
    r.loop.runPending();

    assertThat(sink.log).isEmpty();
  }

  @Test
  void metrics_countEachOutcomeOnce_andOfferedEqualsTheirSum() {
    RouterFixture r = fixture(1, 0, 0);
    r.submitCompletion();
    r.submitCompletion(); // rejected
    complete(r, 0);
    Client failed = r.submitCompletion();
    r.call(2).respond(500, OpenAiWire.errorBody(500, "boom"));
    assertThat(failed.sink().errors).hasSize(1);

    var registry = r.router.metrics().registry();
    assertThat(count(registry.counter("narwhal_offered_total"))).isEqualTo(3);
    assertThat(count(registry.counter("narwhal_served_total"))).isEqualTo(1);
    assertThat(count(registry.counter(SeriesName.of("narwhal_rejected_total", "reason", "inflight_limit"))))
        .isEqualTo(1);
    assertThat(registry.getCounters((name, m) -> name.startsWith("narwhal_failed_total{reason=\"engine_error\",iid="))
        .values().stream().mapToLong(c -> c.getCount()).sum()).isEqualTo(1);
    assertThat(registry.getGauges().get("narwhal_admission_inflight").getValue()).isEqualTo(0);
    assertThat(registry.getGauges().get("narwhal_admission_inflight_limit").getValue()).isEqualTo(1);
    assertThat(registry.getGauges().get(SeriesName.of("narwhal_resident_requests", "iid", "p1", "phase", "prefill"))
        .getValue()).isEqualTo(0);
    assertThat(r.journal.rows).extracting(row -> row.get("terminal"))
        .isEqualTo(List.of("rejected", "completed", "failed"));
  }

  private static long count(Counter c) {
    return c.getCount();
  }

  /** An admitted ticket for a request arriving now over HTTP with the client's {@code X-Request-Id}. */
  private static AdmissionTicket.Admitted admit(RouterFixture r, String clientRequestId) {
    return (AdmissionTicket.Admitted) r.router.admit(narwhal.api.Arrival.now(r.loop, narwhal.api.FrontEnd.HTTP,
        narwhal.api.Caller.ANONYMOUS, clientRequestId, null, narwhal.api.TraceContext.NONE));
  }
}
