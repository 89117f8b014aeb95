package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.Test;

/** HEAD on the informational routes and {@code GET /v1/models/{id}}, over a real socket. */
class InformationalRoutesHttpTest extends FrontEndTestSupport {

  private HttpResponse<String> head(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(10))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void headHealth_is200WithTheGetsHeadersAndNoBody() throws Exception {
    HttpResponse<String> head = head("/health");

    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.headers().firstValue("content-length"))
        .as("the length a GET would send").hasValue(String.valueOf(get("/health").body().length()));
  }

  @Test
  void headHealth_leavesTheConnectionFramedForTheNextRequest() throws Exception {
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send("HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n");
      RawHttpConnection.Head head = http.readHead();
      assertThat(head.status()).isEqualTo(200);
      // No body follows: the next bytes on the connection are the next response's status line.
      http.send("GET /ready HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(http.readResponse().status()).isEqualTo(200);
    }
  }

  @Test
  void headOnEveryGetRoute_answersAsItsGet() throws Exception {
    for (String path : new String[] {"/ready", "/v1/models", "/v1/models/" + ScriptedCompletionService.MODEL}) {
      assertThat(head(path).statusCode()).as(path).isEqualTo(get(path).statusCode());
    }
    assertThat(head("/v1/completions").statusCode()).as("HEAD is not POST").isEqualTo(405);
  }

  @Test
  void getModelById_isTheServedModelsObject() throws Exception {
    HttpResponse<String> response = get("/v1/models/" + ScriptedCompletionService.MODEL);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(json(response.body())).isEqualTo(json("{\"id\":\"" + ScriptedCompletionService.MODEL
        + "\",\"object\":\"model\",\"created\":" + STARTED_EPOCH_SECONDS + ",\"owned_by\":\"narwhal\"}"));
    assertThat(json(get("/v1/models").body()).at("/data/0")).isEqualTo(json(response.body()));
  }

  @Test
  void getAnotherModel_is404ModelNotFound() throws Exception {
    HttpResponse<String> response = get("/v1/models/org/other-model");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response.body()).get("error")).isEqualTo(json("{\"message\":\"The model `org/other-model` "
        + "does not exist; this router serves `" + ScriptedCompletionService.MODEL + "`.\","
        + "\"type\":\"invalid_request_error\",\"param\":\"model\",\"code\":\"model_not_found\"}"));
  }

  @Test
  void modelsWithATrailingSlash_isNoRoute() throws Exception {
    assertThat(json(get("/v1/models/").body()).at("/error/code").asText()).isEqualTo("not_found");
  }
}
