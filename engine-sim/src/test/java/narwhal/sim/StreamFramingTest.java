package narwhal.sim;

import static narwhal.sim.SimHttp.completion;
import static narwhal.sim.SimHttp.json;
import static narwhal.sim.SimHttp.sseData;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Streamed responses framed chunked (keep-alive) or close-delimited, and the switch between them. */
class StreamFramingTest {
  private SimEngine engine;

  private SimEngine start(StreamFraming framing) {
    engine = SimEngine.start(
        SimOptions.builder().prefillBaseMillis(1).interTokenMillis(2).streamFraming(framing).build());
    return engine;
  }

  @AfterEach
  void stop() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void closeStyle_streamHasNoLength_rawSseEvents_thenTheServerCloses() throws IOException {
    start(StreamFraming.CLOSE);
    try (RawSse raw = RawSse.post(engine.port(), "/v1/completions", completion("close me", 4, true)).readHead()) {
      assertThat(raw.status()).isEqualTo(200);
      assertThat(raw.header("transfer-encoding")).isNull();
      assertThat(raw.header("content-length")).isNull();
      assertThat(raw.header("connection")).isEqualToIgnoringCase("close");
      assertThat(raw.header("content-type")).startsWith("text/event-stream");

      // The whole body, read until the server closes (a server that kept the connection open
      // would fail this with a read timeout): SSE bytes exactly, with no chunk-size lines.
      String body = raw.readToClose();
      assertThat(body).startsWith("data: {").endsWith("data: [DONE]\n\n");
      List<String> events = sseData(body);
      assertThat(events).hasSize(5);
      List<String> texts = new ArrayList<>();
      for (String event : events.subList(0, 4)) {
        texts.add(json(event).get("choices").get(0).get("text").asText());
      }
      assertThat(texts).isEqualTo(SimEngine.expectedTokens(0, "close me", 4));
      assertThat(events.get(4)).isEqualTo("[DONE]");
      assertThat(raw.readByte()).as("connection closed by the engine").isEqualTo(-1);
    }
    SimHttp.await("the engine's side closed", () -> engine.stats().openConnections() == 0);
    assertThat(engine.stats().activeStreams()).isZero();
    assertThat(engine.stats().cancelledStreams()).as("a completed stream, not a cancelled one").isZero();
  }

  @Test
  void chunkedStyle_isTheDefault_andKeepsTheConnection() throws IOException {
    start(StreamFraming.CHUNKED);
    assertThat(engine.streamFraming()).isEqualTo(StreamFraming.CHUNKED);
    try (Socket socket = connect()) {
      for (int i = 0; i < 2; i++) {
        Response r = exchange(socket, completion("keep " + i, 3, true));
        assertThat(r.headers).containsEntry("transfer-encoding", "chunked").doesNotContainKey("connection");
        assertThat(sseData(r.body)).hasSize(4).endsWith("[DONE]");
      }
    }
    assertThat(engine.stats().totalConnections()).isEqualTo(1);
  }

  @Test
  void closeStyle_nonStreamedResponsesKeepTheirLengthAndTheConnection() throws IOException {
    start(StreamFraming.CLOSE);
    try (Socket socket = connect()) {
      for (int i = 0; i < 2; i++) {
        Response r = exchange(socket, completion("prefill " + i, 1, false));
        assertThat(r.status).isEqualTo(200);
        assertThat(r.headers).containsKey("content-length").doesNotContainKey("connection");
        assertThat(json(r.body).get("choices").get(0).get("text").asText())
            .isEqualTo(SimEngine.expectedText(0, "prefill " + i, 1));
      }
    }
    assertThat(engine.stats().totalConnections()).isEqualTo(1);
  }

  @Test
  void closeStyle_eofAfter_endsTheBodyByClosingWithoutDone() throws IOException {
    start(StreamFraming.CLOSE);
    try (RawSse raw =
        RawSse.post(engine.port(), "/v1/completions", completion("[[sim:eof-after=2]] x", 5, true)).readHead()) {
      List<String> events = sseData(raw.readToClose());
      assertThat(events).hasSize(2).doesNotContain("[DONE]");
    }
  }

  @Test
  void closeStyle_errorAfter_sendsTheErrorEventAndDoneThenCloses() throws IOException {
    start(StreamFraming.CLOSE);
    String prompt = "[[sim:error-after=1,code=503]] x";
    try (RawSse raw = RawSse.post(engine.port(), "/v1/completions", completion(prompt, 5, true)).readHead()) {
      List<String> events = sseData(raw.readToClose());
      assertThat(events).hasSize(3);
      assertThat(json(events.get(1)).get("error").get("code").asInt()).isEqualTo(503);
      assertThat(events.get(2)).isEqualTo("[DONE]");
    }
  }

  @Test
  void adminFraming_readsAndSwitches_fromTheNextStreamOn() throws IOException {
    start(StreamFraming.CHUNKED);
    assertThat(json(SimHttp.get(engine, "/admin/framing").body()).get("stream_framing").asText())
        .isEqualTo("chunked");

    // A stream under way keeps its framing when the engine switches.
    try (RawSse before =
        RawSse.post(engine.port(), "/v1/completions", completion("before", 3, true)).readHead()) {
      HttpResponse<String> switched = SimHttp.post(engine, "/admin/framing", "\"close\"");
      assertThat(switched.statusCode()).isEqualTo(200);
      assertThat(json(switched.body()).get("stream_framing").asText()).isEqualTo("close");
      assertThat(engine.streamFraming()).isEqualTo(StreamFraming.CLOSE);
      assertThat(before.header("transfer-encoding")).isEqualTo("chunked");
      int events = 0;
      while (before.nextData() != null) {
        events++;
      }
      assertThat(events).isEqualTo(4);
    }
    try (RawSse after = RawSse.post(engine.port(), "/v1/completions", completion("after", 3, true)).readHead()) {
      assertThat(after.header("transfer-encoding")).isNull();
      assertThat(sseData(after.readToClose())).hasSize(4);
    }

    HttpResponse<String> back = SimHttp.post(engine, "/admin/framing", "{\"stream_framing\":\"CHUNKED\"}");
    assertThat(back.statusCode()).isEqualTo(200);
    assertThat(json(back.body()).get("stream_framing").asText()).isEqualTo("chunked");
    assertThat(engine.streamFraming()).isEqualTo(StreamFraming.CHUNKED);
  }

  @Test
  void adminFraming_rejectsAnythingElse_withAnOpenAiErrorEnvelope() {
    start(StreamFraming.CHUNKED);
    for (String body : List.of("\"gzip\"", "{\"stream_framing\":7}", "{\"framing\":\"close\"}", "close", "")) {
      HttpResponse<String> response = SimHttp.post(engine, "/admin/framing", body);
      assertThat(response.statusCode()).as(body).isEqualTo(400);
      JsonNode error = json(response.body()).get("error");
      assertThat(error.get("type").asText()).isEqualTo("BadRequestError");
      assertThat(error.get("param").asText()).isEqualTo("stream_framing");
      assertThat(error.get("code").asInt()).isEqualTo(400);
      assertThat(error.get("message").asText()).isNotBlank();
    }
    assertThat(engine.streamFraming()).as("unchanged by bad requests").isEqualTo(StreamFraming.CHUNKED);
    HttpResponse<String> delete = SimHttp.send(HttpRequest.newBuilder(URI.create(engine.baseUrl() + "/admin/framing"))
        .timeout(Duration.ofSeconds(20)).DELETE().build());
    assertThat(delete.statusCode()).isEqualTo(405);
  }

  @Test
  void setStreamFraming_inProcess_isWhatTheAdminApiReports() {
    start(StreamFraming.CHUNKED);
    engine.setStreamFraming(StreamFraming.CLOSE);
    assertThat(json(SimHttp.get(engine, "/admin/framing").body()).get("stream_framing").asText())
        .isEqualTo("close");
  }

  @Test
  void parse_acceptsBothNamesInAnyCase() {
    assertThat(StreamFraming.parse(" Close ")).isEqualTo(StreamFraming.CLOSE);
    assertThat(StreamFraming.parse("CHUNKED")).isEqualTo(StreamFraming.CHUNKED);
    assertThat(StreamFraming.CLOSE.wireName()).isEqualTo("close");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> StreamFraming.parse("identity"))
        .hasMessageContaining("chunked or close");
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", engine.port()), 5000);
    socket.setSoTimeout(5000);
    return socket;
  }

  private record Response(int status, Map<String, String> headers, String body) {}

  /** One request and its whole response on a kept-alive socket (chunked or Content-Length bodies). */
  private static Response exchange(Socket socket, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    OutputStream out = socket.getOutputStream();
    out.write(("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
    InputStream in = socket.getInputStream(); // unbuffered: nothing of the next response is read ahead
    int status = Integer.parseInt(line(in).split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    String h;
    while (!(h = line(in)).isEmpty()) {
      int colon = h.indexOf(':');
      headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
    }
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    if (headers.containsKey("content-length")) {
      content.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    } else {
      int size;
      while ((size = Integer.parseInt(line(in), 16)) > 0) {
        content.write(in.readNBytes(size));
        line(in);
      }
      line(in);
    }
    return new Response(status, headers, content.toString(StandardCharsets.UTF_8));
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new IOException("connection closed");
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.US_ASCII);
  }
}
