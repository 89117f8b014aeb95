package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import narwhal.testing.ScriptedCompletionService.Call;
import org.junit.jupiter.api.Test;

/** Routing, body limits, validation, identity headers and connection reuse. */
class RequestHandlingTest extends FrontEndTestSupport {

  private static final String TOO_LARGE =
      "{\"error\":{\"message\":\"Request body exceeds the limit of 4096 bytes "
          + "(serving.max_request_bytes).\",\"type\":\"request_too_large\",\"param\":null,"
          + "\"code\":null}}";

  private static void answerHello(Call call) {
    call.stream(Events.completionFinal("hello", "stop", "null"));
  }

  @Test
  void contentLengthOverTheLimit_is413BeforeTheBodyIsSent() throws Exception {
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send(
          "POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              + "Content-Length: 4097\r\n\r\n");
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(413);
      assertThat(json(response.body())).isEqualTo(json(TOO_LARGE));
      assertThat(http.serverClosed()).isTrue();
    }
    assertThat(service.pendingCalls()).isZero();
  }

  @Test
  void bodyStillArrivingAfterA413_isReadAndDropped_soTheClientGetsTheAnswer() throws Exception {
    // As Node's fetch (the OpenAI SDK) does, the client writes its whole body before reading. Were
    // the connection closed at once over the unread body, the kernel would answer with a reset:
    // the client's write fails (broken pipe) and the 413 it was sent may be lost with it.
    byte[] body = " ".repeat(8 << 20).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send(
          "POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              + "Content-Length: " + body.length + "\r\n\r\n");
      http.send(body);
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(413);
      assertThat(json(response.body())).isEqualTo(json(TOO_LARGE));
      assertThat(http.serverClosed()).isTrue();
    }
    assertThat(service.pendingCalls()).isZero();
  }

  @Test
  void aRefusedConnectionWhoseClientStaysOpen_isClosedAfterTheLinger() throws Exception {
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send(
          "POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
              + "Content-Length: 4097\r\n\r\n");
      assertThat(http.readResponse().status()).isEqualTo(413);
      assertThat(http.serverClosed()).as("the answer is followed by a FIN").isTrue();

      // The server reads and drops what the client still sends until it closes its side too;
      // from then on the client's writes are refused.
      long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LingeringClose.LINGER_MS + 5_000);
      IOException refused = null;
      while (refused == null && System.nanoTime() < giveUp) {
        try {
          http.send(" ");
          narwhal.testing.Poll.pause(20);
        } catch (IOException e) {
          refused = e;
        }
      }
      assertThat(refused).as("a write after the linger").isNotNull();
    }
  }

  @Test
  void chunkedBodyOverTheLimit_is413OnTheChunkThatCrossesIt() throws Exception {
    String chunk = " ".repeat(1500);
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send(
          "POST /v1/chat/completions HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
      for (int i = 0; i < 3; i++) {
        http.send(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");
      }
      // The limit is crossed; the server answers without waiting for the end of the body.
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(413);
      assertThat(json(response.body())).isEqualTo(json(TOO_LARGE));
      assertThat(http.serverClosed()).isTrue();
    }
    assertThat(service.pendingCalls()).isZero();
  }

  @Test
  void chunkedBodyWithinTheLimit_isServed() throws Exception {
    service.script(RequestHandlingTest::answerHello);
    String body = "{\"prompt\":\"split across chunks\"}";
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
      http.send("5\r\n" + body.substring(0, 5) + "\r\n");
      String rest = body.substring(5);
      http.send(Integer.toHexString(rest.length()) + "\r\n" + rest + "\r\n0\r\n\r\n");
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(200);
      assertThat(json(response.body()).at("/choices/0/text").asText()).isEqualTo("hello");
    }
    assertThat(service.nextCall().request.getPrompt().getText()).isEqualTo("split across chunks");
  }

  @Test
  void malformedJson_is400WithTheProblemAndPosition() throws Exception {
    var response = post("/v1/completions", "{\"prompt\": \"x\",}");

    assertThat(response.statusCode()).isEqualTo(400);
    var error = json(response.body()).get("error");
    assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(error.get("param").isNull()).isTrue();
    assertThat(error.get("code").isNull()).isTrue();
    assertThat(error.get("message").asText())
        .startsWith("request body is not valid JSON: ")
        .contains("(line 1, column 16)");
    assertThat(service.pendingCalls()).isZero();
  }

  @Test
  void wrongFieldType_is400NamingTheField() throws Exception {
    var response = post("/v1/completions", "{\"prompt\":\"x\",\"max_tokens\":\"10\"}");

    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(json(response.body()))
        .isEqualTo(
            json(
                "{\"error\":{\"message\":\"'max_tokens' must be an integer, got a string\","
                    + "\"type\":\"invalid_request_error\",\"param\":\"max_tokens\",\"code\":null}}"));
  }

  @Test
  void anotherModel_is404ModelNotFound() throws Exception {
    var response = post("/v1/completions", "{\"model\":\"gpt-4\",\"prompt\":\"x\"}");

    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(json(response.body()))
        .isEqualTo(
            json(
                "{\"error\":{\"message\":\"The model `gpt-4` does not exist; this router serves "
                    + "`served-model`.\",\"type\":\"invalid_request_error\",\"param\":\"model\","
                    + "\"code\":\"model_not_found\"}}"));
    assertThat(service.pendingCalls()).isZero();
  }

  @Test
  void missingModel_runsOnTheServedModel() throws Exception {
    service.script(RequestHandlingTest::answerHello);

    assertThat(post("/v1/completions", "{\"prompt\":\"x\",\"model\":null}").statusCode())
        .isEqualTo(200);

    Call call = service.nextCall();
    assertThat(call.request.getModel()).isEqualTo("served-model");
    assertThat(call.request.getExtraFieldsMap()).doesNotContainKey("model");
  }

  @Test
  void requestIds_clientIdPassedIn_routerIdSentBack() throws Exception {
    service.script(RequestHandlingTest::answerHello);

    var response = post("/v1/completions", "{\"prompt\":\"x\"}", "X-Request-Id", "client-abc");

    assertThat(response.headers().firstValue("x-request-id")).hasValue("rid-1");
    assertThat(service.nextCall().request.getClientRequestId()).isEqualTo("client-abc");
  }

  @Test
  void arrivalTime_isTakenWhenTheRequestHeadArrives() throws Exception {
    service.script(RequestHandlingTest::answerHello);
    String body = "{\"prompt\":\"x\"}";
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send(
          "POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length() + "\r\n\r\n");
      // Admitted on the head alone: the arrival (and its time) exists before a byte of the body.
      narwhal.testing.ScriptedCompletionService.Ticket ticket = service.tickets.poll(10, TimeUnit.SECONDS);
      assertThat(ticket).isNotNull();
      assertThat(service.pendingCalls()).isZero();
      http.send(body);

      assertThat(http.readResponse().status()).isEqualTo(200);
      Call call = service.nextCall();
      assertThat(call.arrival).isSameAs(ticket.arrival());
      assertThat(call.submittedNanos - call.arrivalNanos).isPositive();
    }
  }

  @Test
  void models_health_ready() throws Exception {
    var models = get("/v1/models");
    assertThat(models.statusCode()).isEqualTo(200);
    assertThat(json(models.body()))
        .isEqualTo(
            json(
                "{\"object\":\"list\",\"data\":[{\"id\":\"served-model\",\"object\":\"model\","
                    + "\"created\":" + STARTED_EPOCH_SECONDS + ",\"owned_by\":\"narwhal\"}]}"));

    var health = get("/health");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(json(health.body())).isEqualTo(json("{\"status\":\"ok\"}"));

    var ready = get("/ready");
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(json(ready.body())).isEqualTo(json("{\"status\":\"ready\"}"));

    service.ready(false);
    var notReady = get("/ready");
    assertThat(notReady.statusCode()).isEqualTo(503);
    assertThat(json(notReady.body())).isEqualTo(json(
        "{\"status\":\"not ready\",\"reason\":\"no decode-capable engine in placement (d0 ejected (liveness))\"}"));
  }

  @Test
  void unknownPath_is404Envelope() throws Exception {
    var response = get("/v2/whatever?x=1");

    assertThat(response.statusCode()).isEqualTo(404);
    var error = json(response.body()).get("error");
    assertThat(error.get("message").asText()).startsWith("No route for GET /v2/whatever;");
    assertThat(error.get("code").asText()).isEqualTo("not_found");
    // The list names every route this front-end answers, the operator's included.
    for (Endpoint endpoint : Endpoint.values()) {
      String route = endpoint == Endpoint.MODEL ? "GET /v1/models/{model}" : endpoint.method.name() + " " + endpoint.path;
      assertThat(error.get("message").asText()).contains(route);
    }
  }

  @Test
  void wrongMethod_is405WithAllow() throws Exception {
    var getCompletions = get("/v1/completions");
    assertThat(getCompletions.statusCode()).isEqualTo(405);
    assertThat(getCompletions.headers().firstValue("allow")).hasValue("POST");
    assertThat(json(getCompletions.body()).at("/error/message").asText())
        .isEqualTo("Method GET is not allowed on /v1/completions; use POST.");

    var postHealth = post("/health", "{}");
    assertThat(postHealth.statusCode()).isEqualTo(405);
    assertThat(postHealth.headers().firstValue("allow")).hasValue("GET, HEAD");
  }

  @Test
  void keepAlive_oneConnectionServesSuccessiveRequests() throws Exception {
    service.script(RequestHandlingTest::answerHello);
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", "{\"prompt\":\"one\"}");
      assertThat(http.readResponse().status()).isEqualTo(200);
      http.post("/v1/completions", "{\"prompt\":\"two\",\"stream\":true}");
      assertThat(http.readResponse().sseData()).last().isEqualTo("[DONE]");
      http.post("/v1/completions", "{\"prompt\":\"bad\",\"n\":2}");
      assertThat(http.readResponse().status()).isEqualTo(400);
      http.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
      assertThat(http.readResponse().status()).isEqualTo(200);
    }
    assertThat(service.nextCall().request.getPrompt().getText()).isEqualTo("one");
    assertThat(service.nextCall().request.getPrompt().getText()).isEqualTo("two");
  }

  @Test
  void pipelinedRequests_areServedOneAtATimeInOrder() throws Exception {
    long[] firstDoneNanos = new long[1];
    service.script(
        call ->
            call.sequence(
                20,
                () -> call.sink.onStart(call.start()),
                () -> call.sink.onEvent(Events.completionFinal(call.request.getPrompt().getText(), "stop", "null")),
                () -> {
                  firstDoneNanos[0] = firstDoneNanos[0] == 0 ? call.loop.nanoTime() : firstDoneNanos[0];
                  call.sink.onComplete();
                }));
    String one = "{\"prompt\":\"first\"}";
    String two = "{\"prompt\":\"second\"}";
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send(
          "POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: " + one.length() + "\r\n\r\n" + one
              + "POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: " + two.length() + "\r\n\r\n" + two
              + "GET /health HTTP/1.1\r\nHost: t\r\n\r\n");

      assertThat(json(http.readResponse().body()).at("/choices/0/text").asText()).isEqualTo("first");
      assertThat(json(http.readResponse().body()).at("/choices/0/text").asText()).isEqualTo("second");
      assertThat(json(http.readResponse().body()).get("status").asText()).isEqualTo("ok");
    }
    service.nextCall();
    Call second = service.nextCall();
    assertThat(second.submittedNanos).isGreaterThanOrEqualTo(firstDoneNanos[0]);
  }

  @Test
  void connectionClose_isHonoured() throws Exception {
    service.script(RequestHandlingTest::answerHello);
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.post("/v1/completions", "{\"prompt\":\"x\"}", "Connection: close");
      RawHttpConnection.Response response = http.readResponse();

      assertThat(response.status()).isEqualTo(200);
      assertThat(response.headers()).containsEntry("connection", "close");
      assertThat(http.serverClosed()).isTrue();
    }
  }

  @Test
  void expectContinue_getsA100ThenTheResponse() throws Exception {
    service.script(RequestHandlingTest::answerHello);
    String body = "{\"prompt\":\"x\"}";
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send(
          "POST /v1/completions HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: "
              + body.length() + "\r\n\r\n");
      RawHttpConnection.Head interim = http.readHead100();
      assertThat(interim.status()).isEqualTo(100);
      http.send(body);

      assertThat(http.readResponse().status()).isEqualTo(200);
    }
  }

  @Test
  void submitThrowing_isAPlainText500() throws Exception {
    service.script(
        call -> {
          throw new IllegalStateException("router bug");
        });

    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(uri("/v1/completions"))
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"x\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(response.headers().firstValue("content-type")).hasValue("text/plain");
    assertThat(response.body()).doesNotContain("router bug");
  }
}
