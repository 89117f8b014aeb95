package narwhal.it;

import static narwhal.it.RouterClient.json;
import static narwhal.testing.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import narwhal.config.SloConfig;
import narwhal.core.fleet.EngineState;
import narwhal.core.profile.DecodeModel;
import narwhal.core.profile.EngineProfile;
import narwhal.core.profile.PrefillModel;
import narwhal.core.request.DisaggregatedRouter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Predictive admission over real sockets against engine-sim: prompts are counted by the engine's
 * {@code POST /tokenize} (the simulator's whitespace words), priced with a profile set on the
 * router (100 ms of prefill per token, slo.ttft_s 1 s, admission_margin 2: a 3 s budget), and a
 * request the queued prefill work would make miss the budget is refused on both front-ends: HTTP
 * 429 with the OpenAI error envelope and a {@code Retry-After} priced from the backlog, gRPC
 * RESOURCE_EXHAUSTED with the same detail, each journalled {@code refused/queue} with its price.
 */
class PredictiveAdmissionTest {

  /** 18 words and a directive (one more word) holding the prefill leg 3 s: 1.9 s of prefill. */
  private static final String HOLDER = "one two three four five six seven eight nine ten eleven twelve thirteen"
      + " fourteen fifteen sixteen seventeen eighteen [[sim:delay-headers=3000,phase=prefill]]";
  /** 22 words: 2.2 s of prefill; its 136 characters would be estimated as 36 tokens. */
  private static final String PROMPT = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima"
      + " mike november oscar papa quebec romeo sierra tango uniform victor";

  private static String body(String prompt) {
    return "{\"prompt\":\"" + prompt + "\",\"max_tokens\":2}";
  }

  private static void profileEveryEngine(DisaggregatedRouter router) {
    for (EngineState e : router.fleet().engines()) {
      router.profiles().put(new EngineProfile(e.iid(), null, new PrefillModel(0, 0.1, 0, 1, 4096),
          new DecodeModel(0.001, 0, 0, 4096, 64), 0.01, 0.02));
    }
  }

  @Test
  void overTheBudget_is429WithAPricedRetryAfter_onBothFrontEnds_countedByTheEngine(@TempDir Path dir)
      throws Exception {
    JournalFile journal = new JournalFile(dir.resolve("j.jsonl"));
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withSlo(SloConfig.of(1.0, 0.5)).withServing(c.serving().withAdmissionMargin(2.0)), journal.path())) {
      DisaggregatedRouter router = fleet.router.router();
      profileEveryEngine(router);
      CompletableFuture<HttpResponse<String>> holder = fleet.client.postAsync("/v1/completions", body(HOLDER));
      until("the holder's prefill to be resident",
          () -> router.fleet().totalResidentPrefill() == 1 || holder.isDone());
      assertThat(holder).as("the holder is admitted and held").isNotDone();

      HttpResponse<String> refused = fleet.client.post("/v1/completions", body(PROMPT));

      // 1.9 s queued + 2.2 s own (+ a few ms waited) is 4.1 s: 1.1 s over the 3 s budget.
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("retry-after")).hasValue("2");
      assertThat(refused.headers().firstValue("content-type")).hasValueSatisfying(t -> assertThat(t)
          .startsWith("application/json"));
      JsonNode error = json(refused.body()).path("error");
      assertThat(iterable(error.fieldNames())).containsExactly("message", "type", "param", "code");
      assertThat(error.path("type").asText()).isEqualTo("server_overloaded_error");
      assertThat(error.path("param").isNull()).isTrue();
      assertThat(error.path("code").isNull()).isTrue();
      assertThat(error.path("message").asText()).startsWith("projected time to first token 4.1")
          .contains("over the TTFT budget of 3 s").contains("queued on engine p0").contains("22 prompt tokens");

      GrpcRouterClient grpc = new GrpcRouterClient(fleet.router.grpcPort());
      GrpcRouterClient.Outcome<narwhal.proto.v1.StreamEvent> viaGrpc;
      try {
        viaGrpc = grpc.stream(GrpcRouterClient.completion(PROMPT, 2));
      } finally {
        grpc.close();
      }
      assertThat(viaGrpc.status().getCode()).isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED);
      assertThat(viaGrpc.status().getDescription()).startsWith("projected time to first token 4.1");
      assertThat(viaGrpc.trailer(GrpcRouterClient.HTTP_STATUS)).isEqualTo("429");
      assertThat(viaGrpc.trailer(GrpcRouterClient.RETRY_AFTER)).isEqualTo("2");

      assertThat(holder.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      List<JsonNode> rows = journal.awaitRequestRows(3);
      for (String rid : List.of(rid(refused), viaGrpc.trailer(GrpcRouterClient.REQUEST_ID))) {
        JsonNode row = journal.row(rid);
        assertThat(row.path("terminal").asText()).isEqualTo("refused");
        assertThat(row.path("reason").asText()).isEqualTo("queue");
        assertThat(row.path("status").asInt()).isEqualTo(429);
        assertThat(row.path("input_len").asLong()).as("the engine's count, not the estimate").isEqualTo(22);
        assertThat(row.path("input_sized").asText()).isEqualTo("exact");
        JsonNode price = row.path("admission_price");
        assertThat(price.path("backlog_s").asDouble()).isCloseTo(1.9, within(1e-9));
        assertThat(price.path("own_prefill_s").asDouble()).isCloseTo(2.2, within(1e-9));
        assertThat(price.path("elapsed_s").asDouble()).isBetween(0.0, 0.9);
        assertThat(price.path("price_s").asDouble()).isCloseTo(4.1 + price.path("elapsed_s").asDouble(),
            within(1e-9));
      }
      JsonNode served = rows.stream().filter(r -> r.path("terminal").asText().equals("completed")).findFirst()
          .orElseThrow();
      assertThat(served.path("input_len").asLong()).isEqualTo(19);
      assertThat(served.path("admission_price").path("own_prefill_s").asDouble()).isCloseTo(1.9, within(1e-9));
      assertThat(served.path("unserved").isArray()).isTrue();
      assertThat(fleet.client.get("/metrics").body()).contains("narwhal_refused_total{cause=\"queue\"} 2");
      fleet.assertReservationsReturnToZero();
    }
  }

  private static String rid(HttpResponse<?> r) {
    return r.headers().firstValue("x-request-id").orElseThrow();
  }

  private static List<String> iterable(java.util.Iterator<String> names) {
    Iterable<String> it = () -> names;
    return StreamSupport.stream(it.spliterator(), false).toList();
  }
}
