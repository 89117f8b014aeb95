package narwhal.it;

import static narwhal.testing.Poll.until;
import static narwhal.it.RouterClient.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import narwhal.config.EngineRestartPolicy;
import narwhal.config.FleetConfig;
import narwhal.core.fleet.EngineCondition;
import narwhal.core.fleet.EngineState;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/** {@code GET /narwhal/state} and {@code GET /ready} as an operator reads them. */
class StateEndpointTest {

  private static String body(String prompt, boolean stream) {
    return "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":4,\"stream\":" + stream + "}";
  }

  /** Requests with an outcome, whatever it was. */
  private static long ended(JsonNode counters) {
    return counters.path("served").asLong() + counters.path("failed").asLong()
        + counters.path("expired").asLong() + counters.path("rejected").asLong()
        + counters.path("refused").asLong() + counters.path("invalid").asLong()
        + counters.path("cancelled").asLong();
  }

  @Test
  void afterMixedFailures_residentCountsAreZero_andCountersAddUp() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(2, 2, RoutedFleet.fastEngines().build(), c -> c
        .withEngine(c.engine().withFirstTokenTimeoutS(0.3).withDecodeReadTimeoutS(0.2)), null)) {
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      String[] prompts = {
          "ok", "ok too", "[[sim:status=500,phase=prefill]]", "[[sim:error-after=2,phase=decode]]",
          "[[sim:silence-first=forever,phase=decode]]", "[[sim:silence-after=1,phase=decode]]",
          "[[sim:eof-after=1,phase=decode]]", "[[sim:done-first,phase=decode]]", "[[sim:kv-none]]",
          "[[sim:status=400,message=too long,phase=prefill]]"};
      for (String p : prompts) {
        calls.add(fleet.client.postAsync("/v1/completions", body(p, true)));
        calls.add(fleet.client.postAsync("/v1/completions", body(p + " again", false)));
      }
      int ok = 0;
      for (CompletableFuture<HttpResponse<String>> call : calls) {
        HttpResponse<String> r = call.get(10, TimeUnit.SECONDS);
        // A stream that failed after its first token is still a 200: only [DONE] means served.
        boolean streamed = r.headers().firstValue("content-type").orElse("").startsWith("text/event-stream");
        if (r.statusCode() == 200 && (!streamed || r.body().contains("data: [DONE]"))) {
          ok++;
        }
      }
      fleet.assertReservationsReturnToZero();

      // A request's outcome is recorded right after its last bytes leave for the client, so the
      // client can ask a moment before its own request is counted: wait for every outcome, then
      // check that each request has exactly one.
      AtomicReference<HttpResponse<String>> lastRead = new AtomicReference<>();
      until("an outcome for each of the " + calls.size() + " requests", () -> {
        HttpResponse<String> read = fleet.client.get("/narwhal/state");
        lastRead.set(read);
        return read.statusCode() != 200 || ended(json(read.body()).path("counters")) >= calls.size();
      });
      HttpResponse<String> r = lastRead.get();
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
      JsonNode state = json(r.body());
      assertThat(state.path("schema").asText()).isEqualTo("narwhal.state");
      assertThat(state.path("schema_version").asInt()).isEqualTo(1);
      assertThat(state.path("model").asText()).isEqualTo("narwhal-sim");
      assertThat(state.path("engines")).hasSize(4);
      for (JsonNode e : state.path("engines")) {
        assertThat(e.path("iid").asText()).isIn("p0", "p1", "d0", "d1");
        assertThat(e.path("role").asText()).isIn("prefill", "decode");
        assertThat(e.path("state").asText()).isIn("active", "held", "ejected", "quarantined");
        assertThat(e.path("resident").path("prefill").asInt()).as("resident prefill on %s", e.path("iid")).isZero();
        assertThat(e.path("resident").path("decode").asInt()).as("resident decode on %s", e.path("iid")).isZero();
        assertThat(e.path("breaker").fieldNames()).toIterable()
            .containsExactly("connection", "timeout", "overload", "stream", "inference_status", "kv_handoff");
      }
      JsonNode counters = state.path("counters");
      assertThat(counters.path("offered").asLong()).isEqualTo(calls.size());
      assertThat(counters.path("served").asLong()).isEqualTo(ok);
      assertThat(ended(counters)).as("every offered request has exactly one outcome").isEqualTo(calls.size());
      assertThat(counters.path("failed").asLong()).isPositive();
      JsonNode admission = state.path("admission");
      assertThat(admission.path("in_flight").asInt()).isZero();
      assertThat(admission.path("limit").asInt()).isEqualTo(512);
      assertThat(admission.path("draining").asBoolean()).isFalse();
    }
  }

  @Test
  void breakerStreaksAndStates_showInTheDocument() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 2, RoutedFleet.fastEngines().build(), c -> c
        .withRecovery(c.recovery().withEjectAfter(2).withReadmitEvery(1000))
        .withEngine(c.engine().withFirstTokenTimeoutS(0.2)), null)) {
      fleet.engine("d0").setFaults(narwhal.sim.FaultPlan.of("silence-first=forever,phase=decode"));
      fleet.client.post("/v1/completions", body("one", false));
      JsonNode d0 = engine(json(fleet.client.get("/narwhal/state").body()), "d0");
      assertThat(d0.path("breaker").path("stream").asInt()).isEqualTo(1);
      assertThat(d0.path("state").asText()).isEqualTo("active");

      fleet.client.post("/v1/completions", body("two", false));
      EngineState d0State = fleet.router.router().fleet().get("d0");
      until("d0 held", () -> d0State.condition() == EngineCondition.HELD);
      d0 = engine(json(fleet.client.get("/narwhal/state").body()), "d0");
      assertThat(d0.path("state").asText()).isEqualTo("held");
      assertThat(d0.path("cause").asText()).isEqualTo("stream");
    }
  }

  @Test
  void ready_is503WithTheReason_whenNoDecodeEngineIsLeft() throws Exception {
    // Pinned: otherwise the role controller's empty-role fallback has p0 decode too, and the
    // fleet stays ready (AdaptiveRolesTest covers that).
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> fastLiveness(c).withEngines(c.engines().stream().map(e -> e.withPin(true)).toList()), null)) {
      assertThat(fleet.client.get("/ready").statusCode()).isEqualTo(200);
      fleet.engine("d0").close();
      EngineState d0 = fleet.router.router().fleet().get("d0");
      until("d0 ejected", () -> d0.condition() == EngineCondition.EJECTED);

      HttpResponse<String> ready = fleet.client.get("/ready");
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(json(ready.body()).path("reason").asText())
          .isEqualTo("no decode-capable engine in placement (d0 ejected (liveness))");
      HttpResponse<String> refused = fleet.client.post("/v1/completions", body("nobody decodes", false));
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(json(refused.body()).path("error").path("type").asText()).isEqualTo("backend_unavailable");
    }
  }

  @Test
  void wholeWaveRestart_holdsAdmissionUntilEveryEngineIsBack() throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(1, 2, RoutedFleet.fastEngines().build(), c -> {
      FleetConfig f = fastLiveness(c);
      return f.withRecovery(f.recovery().withEngineRestartPolicy(EngineRestartPolicy.WHOLE_WAVE));
    }, null)) {
      SimEngine d1 = fleet.engine("d1");
      int port = d1.port();
      d1.close();
      until("d1 ejected", () -> fleet.router.router().fleet().get("d1").condition() == EngineCondition.EJECTED);

      HttpResponse<String> held = fleet.client.post("/v1/completions", body("during the wave", false));
      assertThat(held.statusCode()).as("d0 could serve, but the wave holds admission").isEqualTo(503);
      assertThat(held.headers().firstValue("retry-after")).hasValue("1");
      assertThat(json(held.body()).path("error").path("message").asText()).contains("whole_wave");
      assertThat(json(fleet.client.get("/ready").body()).path("reason").asText()).startsWith("whole-wave engine restart");

      try (SimEngine back = SimEngine.start(d1.options().toBuilder().port(port).build())) {
        until("the wave to end", () -> fleet.router.router().ready());
        assertThat(fleet.client.post("/v1/completions", body("after the wave", false)).statusCode()).isEqualTo(200);
      }
    }
  }

  /** Liveness checks every 2 ticks of 50 ms, 2 misses eject; readmission every 4 ticks. */
  private static FleetConfig fastLiveness(FleetConfig c) {
    return c.withController(c.controller().withMonitorIntervalS(0.05))
        .withRecovery(c.recovery().withReadmitEvery(4).withLivenessEvery(2).withLivenessMisses(2));
  }

  private static JsonNode engine(JsonNode state, String iid) {
    for (JsonNode e : state.path("engines")) {
      if (e.path("iid").asText().equals(iid)) {
        return e;
      }
    }
    throw new AssertionError("no engine " + iid + " in " + state);
  }

}
