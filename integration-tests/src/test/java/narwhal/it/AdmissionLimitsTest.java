package narwhal.it;

import static narwhal.testing.Poll.until;
import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import narwhal.config.ServingConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admission table over real HTTP: the in-flight limit (refused on the headers, before the body
 * is read), the FIFO queue and its timeout, the original deadline counting queue time, and no
 * engine left for a role. Each row's journal entry is checked by request id.
 */
class AdmissionLimitsTest {

  /** A request that holds its seat for a while: its producer answers after {@code ms}. */
  private static String slow(int ms) {
    return "{\"prompt\": \"slow [[sim:delay-headers=" + ms + ",phase=prefill]]\", \"max_tokens\": 2, \"stream\": true}";
  }

  private static final String QUICK = "{\"prompt\": \"quick\", \"max_tokens\": 2}";

  private static RoutedFleet fleet(Path journal, java.util.function.UnaryOperator<ServingConfig> serving) {
    return RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withServing(serving.apply(c.serving())), journal);
  }


  private static String rid(HttpResponse<?> r) {
    return r.headers().firstValue("x-request-id").orElseThrow();
  }

  @Test
  void inflightLimit_is429OnTheHeaders_beforeTheBodyIsSent(@TempDir Path dir) throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = fleet(journal.path(), s -> s.withMaxConnections(1))) {
      CompletableFuture<HttpResponse<String>> holder = fleet.client.postAsync("/v1/completions", slow(2000));
      until("the first request to hold the only seat", () -> fleet.router.router().admission().inFlight() == 1);

      try (RawHttp raw = new RawHttp(fleet.router.port())) {
        raw.sendHeaders("/v1/completions", QUICK.length()); // the body is never sent
        RawHttp.Response refused = raw.readResponse();

        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.header("Retry-After")).isEqualTo("1");
        JsonNode error = json(refused.body()).path("error");
        assertThat(error.path("type").asText()).isEqualTo("server_overloaded_error");
        assertThat(error.path("message").asText()).startsWith("router in-flight limit reached");
        assertThat(holder).isNotDone();

        journal.awaitRequestRows(1);
        JsonNode row = journal.row(refused.header("x-request-id"));
        assertThat(row.path("terminal").asText()).isEqualTo("rejected");
        assertThat(row.path("reason").asText()).isEqualTo("inflight_limit");
        assertThat(row.path("status").asInt()).isEqualTo(429);
      }

      assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      until("the seat to come back", () -> fleet.router.router().admission().inFlight() == 0);
      assertThat(fleet.client.post("/v1/completions", QUICK).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void grpc_goesThroughTheSameSeats_andIsRefused429WhenTheyAreTaken(@TempDir Path dir) throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = fleet(journal.path(), s -> s.withMaxConnections(1))) {
      GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort());
      // Generous: the gRPC call must arrive while the seat is held, even on a loaded machine.
      CompletableFuture<HttpResponse<String>> holder = fleet.client.postAsync("/v1/completions", slow(3000));
      until("the HTTP request to hold the only seat", () -> fleet.router.router().admission().inFlight() == 1);
      try {
        GrpcRouterClient.Outcome<narwhal.proto.v1.StreamEvent> r =
            grpc.stream(GrpcRouterClient.completion("over the limit", 2));

        assertThat(r.status().getCode()).isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED);
        assertThat(r.trailer(GrpcRouterClient.HTTP_STATUS)).isEqualTo("429");
        assertThat(r.trailer(GrpcRouterClient.RETRY_AFTER)).isEqualTo("1");
        journal.awaitRequestRows(1);
        JsonNode row = journal.row(r.trailer(GrpcRouterClient.REQUEST_ID));
        assertThat(row.path("terminal").asText()).isEqualTo("rejected");
        assertThat(row.path("reason").asText()).isEqualTo("inflight_limit");
      } finally {
        grpc.close();
      }
      assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      until("the seat to come back", () -> fleet.router.router().admission().inFlight() == 0);
    }
  }

  @Test
  void queue_servesInOrder_andRefusesOnceTheQueueIsFull(@TempDir Path dir) throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = fleet(journal.path(), s -> s.withMaxConnections(1).withQueue(1, 10.0))) {
      CompletableFuture<HttpResponse<String>> holder = fleet.client.postAsync("/v1/completions", slow(2000));
      until("the first request to be seated", () -> fleet.router.router().admission().inFlight() == 1);
      CompletableFuture<HttpResponse<String>> queued = fleet.client.postAsync("/v1/completions", QUICK);
      until("the second request to queue", () -> fleet.router.router().admission().queued() == 1);

      HttpResponse<String> refused = fleet.client.post("/v1/completions", QUICK);

      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
      assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      HttpResponse<String> served = queued.get(10, TimeUnit.SECONDS);
      assertThat(served.statusCode()).isEqualTo(200);
      journal.awaitRequestRows(3);
      JsonNode row = journal.row(rid(served));
      assertThat(row.path("terminal").asText()).isEqualTo("completed");
      assertThat(row.path("queue_wait_s").asDouble()).isPositive();
      assertThat(journal.row(rid(refused)).path("reason").asText()).isEqualTo("inflight_limit");
      until("the seat to come back", () -> fleet.router.router().admission().inFlight() == 0);
    }
  }

  @Test
  void queueTimeout_is504QueueExpired(@TempDir Path dir) throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = fleet(journal.path(), s -> s.withMaxConnections(1).withQueue(4, 0.2))) {
      CompletableFuture<HttpResponse<String>> holder = fleet.client.postAsync("/v1/completions", slow(1000));
      until("the first request to be seated", () -> fleet.router.router().admission().inFlight() == 1);

      HttpResponse<String> expired = fleet.client.post("/v1/completions", QUICK);

      assertThat(expired.statusCode()).isEqualTo(504);
      assertThat(json(expired.body()).path("error").path("type").asText()).isEqualTo("queue_expired");
      assertThat(holder).isNotDone();
      journal.awaitRequestRows(1);
      JsonNode row = journal.row(rid(expired));
      assertThat(row.path("terminal").asText()).isEqualTo("expired");
      assertThat(row.path("reason").asText()).isEqualTo("queue_timeout");
      assertThat(row.path("queue_wait_s").asDouble()).isGreaterThanOrEqualTo(0.2);
      assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(fleet.router.router().admission().queued()).isZero();
    }
  }

  @Test
  void theOriginalDeadline_countsTimeInTheQueue(@TempDir Path dir) throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = fleet(journal.path(),
        s -> s.withMaxConnections(1).withQueue(4, 30.0).withRequestTimeoutS(0.3))) {
      CompletableFuture<HttpResponse<String>> holder = fleet.client.postAsync("/v1/completions", slow(1000));
      until("the first request to be seated", () -> fleet.router.router().admission().inFlight() == 1);

      // The holder's deadline ends first and frees the seat, so this request is seated with the
      // few milliseconds it arrived later still left. Its producer answers after 150 ms: inside
      // the 300-ms deadline had the queue not counted, far beyond what is left since it does
      // (a quick engine could reach a first token in that remainder on a loaded machine).
      HttpResponse<String> expired = fleet.client.post("/v1/completions",
          "{\"prompt\": \"quick [[sim:delay-headers=150,phase=prefill]]\", \"max_tokens\": 2}");

      assertThat(expired.statusCode()).isEqualTo(504);
      assertThat(json(expired.body()).path("error").path("type").asText()).isEqualTo("request_expired");
      // The seated request expires too (same 300 ms deadline): wait for both rows.
      journal.awaitRequestRows(2);
      assertThat(journal.row(rid(expired)).path("reason").asText()).isEqualTo("deadline");
      assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(504);
    }
  }

  @Test
  void noEngineLeftForARole_is503BackendUnavailableWithRetryAfter(@TempDir Path dir) {
    // Nothing of the role in placement: the only prefill engine is down and liveness took it out.
    // (A request's own failures never empty a role: exclusions are preferences, and the last
    // engine stays in placement; see PoisonAndFallbackTest.) The engines are pinned: otherwise the
    // role controller would let d0 take both roles (empty_role_fallback; AdaptiveRolesTest).
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withEngines(c.engines().stream().map(e -> e.withPin(true)).toList())
            .withController(c.controller().withMonitorIntervalS(0.05))
            .withRecovery(c.recovery().withLivenessEvery(1).withLivenessMisses(1).withReadmitEvery(100000))
            .withServing(c.serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.001)), journal.path())) {
      fleet.engine("p0").close();
      until("liveness ejects p0", () -> !fleet.router.router().fleet().get("p0").inPlacement());

      HttpResponse<String> r = fleet.client.post("/v1/completions", QUICK);

      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("retry-after")).hasValue("1");
      JsonNode error = json(r.body()).path("error");
      assertThat(error.path("type").asText()).isEqualTo("backend_unavailable");
      assertThat(error.path("code").asText()).isEqualTo("backend_unavailable");
      journal.awaitRequestRows(1);
      JsonNode row = journal.row(rid(r));
      assertThat(row.path("terminal").asText()).isEqualTo("failed");
      assertThat(row.path("reason").asText()).isEqualTo("no_engine");
      fleet.assertReservationsReturnToZero();
    }
  }
}
