package narwhal.sim;

import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EndpointsTest {
  private SimEngine engine;

  @BeforeEach
  void start() {
    engine = SimEngine.start(SimOptions.builder().model("m-1").maxModelLen(4096).interTokenMillis(1).build());
  }

  @AfterEach
  void stop() {
    engine.close();
  }

  @Test
  void health_is200WithEmptyBody() {
    HttpResponse<String> response = SimHttp.get(engine, "/health");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEmpty();
  }

  @Test
  void models_listsServedModelWithMaxModelLen() {
    JsonNode body = json(SimHttp.get(engine, "/v1/models").body());

    assertThat(body.get("object").asText()).isEqualTo("list");
    JsonNode model = body.get("data").get(0);
    assertThat(model.get("id").asText()).isEqualTo("m-1");
    assertThat(model.get("object").asText()).isEqualTo("model");
    assertThat(model.get("owned_by").asText()).isEqualTo("vllm");
    assertThat(model.get("root").asText()).isEqualTo("m-1");
    assertThat(model.get("parent").isNull()).isTrue();
    assertThat(model.get("max_model_len").asInt()).isEqualTo(4096);
    assertThat(model.get("permission").get(0).get("object").asText()).isEqualTo("model_permission");
  }

  @Test
  void metrics_exposeVllmGaugesAndCounters() {
    post(engine, "/v1/completions", "{\"model\":\"m-1\",\"prompt\":\"a b c\",\"max_tokens\":2}");
    HttpResponse<String> response = SimHttp.get(engine, "/metrics");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain");
    String labels = "{model_name=\"m-1\",engine=\"0\"}";
    assertThat(response.body())
        .contains("# TYPE vllm:num_requests_running gauge")
        .contains("vllm:num_requests_running" + labels + " 0.0")
        .contains("vllm:num_requests_waiting" + labels + " 0.0")
        .contains("vllm:kv_cache_usage_perc" + labels + " 0.0")
        .contains("# TYPE vllm:prompt_tokens_total counter")
        .contains("vllm:prompt_tokens_total" + labels + " 3.0")
        .contains("vllm:generation_tokens_total" + labels + " 2.0");
  }

  @Test
  void received_recordsV1RequestsInOrderWithLowerCasedHeaders() {
    post(engine, "/v1/completions", completion("first", 1, false).replace("narwhal-sim", "m-1"),
        "X-Request-Id", "r-1");
    SimHttp.get(engine, "/v1/models");
    SimHttp.get(engine, "/health");
    post(engine, "/v1/completions", "not json");

    List<ReceivedRequest> received = engine.received();
    assertThat(received).hasSize(3);
    ReceivedRequest first = received.get(0);
    assertThat(first.method()).isEqualTo("POST");
    assertThat(first.path()).isEqualTo("/v1/completions");
    assertThat(first.headers()).containsEntry("x-request-id", "r-1");
    assertThat(first.header("X-Request-Id")).isEqualTo("r-1");
    assertThat(first.body().get("prompt").asText()).isEqualTo("first");
    assertThat(received.get(1).method()).isEqualTo("GET");
    assertThat(received.get(1).path()).isEqualTo("/v1/models");
    assertThat(received.get(1).body()).isNull();
    assertThat(received.get(2).body()).isNull();

    engine.clearReceived();
    assertThat(engine.received()).isEmpty();
  }

  @Test
  void received_keepsOnlyTheNewestRequests_upToItsCapacity() {
    SimEngine small = SimEngine.start(SimOptions.builder().maxRecordedRequests(2).interTokenMillis(1).build());
    try {
      for (String prompt : List.of("one", "two", "three")) {
        post(small, "/v1/completions", completion(prompt, 1, false));
      }

      assertThat(small.received()).extracting(r -> r.body().get("prompt").asText()).containsExactly("two", "three");
    } finally {
      small.close();
    }
  }

  @Test
  void adminStats_reportsCounters() {
    post(engine, "/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":1}");

    JsonNode stats = json(SimHttp.get(engine, "/admin/stats").body());
    assertThat(stats.get("requests").asInt()).isEqualTo(1);
    assertThat(stats.get("active_streams").asInt()).isZero();
  }

  @Test
  void wrongMethod_is405() {
    assertThat(SimHttp.get(engine, "/v1/completions").statusCode()).isEqualTo(405);
  }

  @Test
  void baseUrlAndEngineId_describeTheEngine() {
    assertThat(engine.baseUrl()).isEqualTo("http://127.0.0.1:" + engine.port());
    assertThat(engine.engineId()).matches("[0-9a-f-]{36}");
  }
}
