package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import narwhal.sim.SimEngine;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Malformed and hostile requests, seeded: bodies through an HTTP client ({@link HostileBodies}) and
 * broken HTTP over raw sockets. Every answer is a 4xx with the OpenAI error envelope (or, for HTTP
 * that cannot be parsed, a clean close), never a 5xx (the engines stay healthy, so any 5xx is the
 * router's); the router keeps serving after each batch; the journal keeps a row for every request
 * that reached admission. {@code -Dnarwhal.fuzz.seed=N} replays a run; a failure names its seed.
 */
class HostileInputFuzzTest {

  private static final int MAX_REQUEST_BYTES = 64 * 1024;
  private static final int BODIES = 240;
  private static final int BATCH = 40;

  @Test
  void hostileBodiesAndBrokenHttp_getCleanRefusals_andTheRouterKeepsServing() throws Exception {
    String property = System.getProperty("narwhal.fuzz.seed", System.getenv("NARWHAL_FUZZ_SEED"));
    long seed = property == null || property.isBlank() ? System.nanoTime() : Long.parseLong(property.trim());
    System.out.println("HostileInputFuzzTest: seed " + seed);
    try (RoutedFleet fleet = RoutedFleet.start(1, 1, RoutedFleet.fastEngines().build(),
        c -> c.withServing(c.serving().withMaxRequestBytes(MAX_REQUEST_BYTES).withRequestTimeoutS(3)
            .withHeaderTimeoutS(1.5)), null)) {
      List<String> problems = new ArrayList<>();
      List<String> routerRids = new ArrayList<>();
      try {
        fuzzBodies(fleet, seed, problems, routerRids);
        fuzzHttp(fleet, problems, routerRids);
        assertThat(problems).as("bad answers").isEmpty();
        assertJournalRows(fleet.journal(), routerRids);
        fleet.assertReservationsReturnToZero();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("fuzz failed; replay with -Dnarwhal.fuzz.seed=" + seed + ": " + e.getMessage(), e);
      }
    }
  }

  private static void fuzzBodies(RoutedFleet fleet, long seed, List<String> problems, List<String> routerRids)
      throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5)).build();
    HostileBodies bodies = new HostileBodies(seed, MAX_REQUEST_BYTES);
    for (int i = 0; i < BODIES; i++) {
      HostileBodies.Body body = bodies.next();
      String path = body.chat() ? "/v1/chat/completions" : "/v1/completions";
      HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + fleet.router.port() + path))
          .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
          .header("X-Request-Id", "fuzz-" + i).POST(HttpRequest.BodyPublishers.ofByteArray(body.bytes())).build();
      HttpResponse<String> r;
      try {
        r = http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        // The router may close on a 413 before the client finished sending: the client may see either.
        if (body.bytes().length <= MAX_REQUEST_BYTES) {
          problems.add("fuzz-" + i + " " + body.label() + ": " + e);
        }
        continue;
      }
      String problem = judge(r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body(), true);
      if (problem != null) {
        problems.add("fuzz-" + i + " " + body.label() + ": " + problem);
      }
      r.headers().firstValue("x-request-id").ifPresent(routerRids::add);
      if (i % BATCH == BATCH - 1) {
        assertStillServing(fleet);
      }
    }
  }

  /** Broken HTTP over raw sockets; each case is request bytes, sent in pieces with pauses between. */
  private static void fuzzHttp(RoutedFleet fleet, List<String> problems, List<String> routerRids) throws Exception {
    String post = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
    String ok = "{\"model\":\"narwhal-sim\",\"prompt\":\"hi\",\"max_tokens\":2}";
    Map<String, List<String>> cases = new TreeMap<>();
    cases.put("garbage request line", List.of("GARBAGE\r\n\r\n"));
    cases.put("binary request line", List.of("\u0000\u0001\u0002 / HTTP/1.1\r\n\r\n"));
    cases.put("content-length and chunked", List.of(post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
        + Integer.toHexString(ok.length()) + "\r\n" + ok + "\r\n0\r\n\r\n"));
    cases.put("negative content-length", List.of(post + "Content-Length: -1\r\n\r\n" + ok));
    cases.put("non-numeric content-length", List.of(post + "Content-Length: abc\r\n\r\n" + ok));
    cases.put("two content-lengths", List.of(post + "Content-Length: 3\r\nContent-Length: " + ok.length()
        + "\r\n\r\n" + ok));
    cases.put("bad chunk size", List.of(post + "Transfer-Encoding: chunked\r\n\r\nzz\r\n" + ok + "\r\n0\r\n\r\n"));
    cases.put("unknown transfer-encoding", List.of(post + "Transfer-Encoding: gzip\r\n\r\n" + ok));
    cases.put("header bomb (count)", List.of(post + "X-Bomb: 0123456789012345678901234567890123456789\r\n"
        .repeat(3000) + "Content-Length: " + ok.length() + "\r\n\r\n" + ok));
    cases.put("header bomb (one 128 KiB value)", List.of(post + "X-Bomb: " + "b".repeat(128 * 1024)
        + "\r\nContent-Length: " + ok.length() + "\r\n\r\n" + ok));
    cases.put("huge uri", List.of("POST /v1/completions?" + "q".repeat(100_000) + " HTTP/1.1\r\nHost: x\r\n"
        + "Content-Length: " + ok.length() + "\r\n\r\n" + ok));
    cases.put("oversized content-length", List.of(post + "Content-Length: " + (MAX_REQUEST_BYTES + 1) + "\r\n\r\n"));
    cases.put("oversized, expect 100-continue", List.of(post + "Expect: 100-continue\r\nContent-Length: "
        + (10L * MAX_REQUEST_BYTES) + "\r\n\r\n"));
    cases.put("oversized chunked", List.of(post + "Transfer-Encoding: chunked\r\n\r\n"
        + (Integer.toHexString(MAX_REQUEST_BYTES) + "\r\n" + "a".repeat(MAX_REQUEST_BYTES) + "\r\n").repeat(2)));
    cases.put("slowloris body", List.of(post + "Content-Length: " + ok.length() + "\r\n\r\n" + ok.substring(0, 5),
        "@600", ok.substring(5, 9), "@600", ok.substring(9, 12), "@600", ok.substring(12, 14), "@600", "x"));
    cases.put("slowloris head", List.of("POST /v1/completions HTTP/1.1\r\n", "@600", "Host: x\r\n", "@600",
        "X-A: 1\r\n", "@600", "X-B: 2\r\n"));
    cases.put("truncated body then close", List.of(post + "Content-Length: 500\r\n\r\n" + ok, "@close"));
    for (Map.Entry<String, List<String>> c : cases.entrySet()) {
      RawAnswer a = exchange(fleet.router.port(), c.getValue());
      String problem = a.status() < 0 ? null : judge(a.status(), a.header("content-type"), a.body(), false);
      if (problem != null) {
        problems.add(c.getKey() + ": " + problem);
      }
      if (a.header("x-request-id") != null) {
        routerRids.add(a.header("x-request-id"));
      }
      assertStillServing(fleet);
    }
  }

  /** Why a refusal is not clean, or null. 2xx is fine only where a body may be valid after all. */
  private static @Nullable String judge(int status, String contentType, String body, boolean mayBeValid) {
    if (status >= 500) {
      return "router 5xx " + status + ": " + abbreviate(body);
    }
    if (status < 400) {
      return mayBeValid && status == 200 ? null : "status " + status + ": " + abbreviate(body);
    }
    if (body.isEmpty() && !contentType.startsWith("application/json")) {
      return null; // a refusal of unparseable HTTP, before any route: status line only
    }
    JsonNode error = null;
    try {
      error = RouterClient.JSON.readTree(body).get("error");
    } catch (IOException e) {
      // reported below
    }
    if (error == null || !error.path("message").isTextual() || !error.path("type").isTextual()) {
      return status + " without the OpenAI error envelope: " + abbreviate(body);
    }
    return null;
  }

  /** After each batch: a normal request still gets exactly its tokens. */
  private static void assertStillServing(RoutedFleet fleet) {
    HttpResponse<String> r = fleet.client.post("/v1/completions",
        "{\"model\":\"narwhal-sim\",\"prompt\":\"still serving\",\"max_tokens\":3}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(RouterClient.json(r.body()).path("choices").path(0).path("text").asText())
        .isEqualTo(SimEngine.expectedText(0, "still serving", 3));
  }

  /** Every answer that named a router rid (it reached admission) has exactly one journal row. */
  private static void assertJournalRows(JournalFile journal, List<String> routerRids) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<String> missing;
    Map<String, Integer> counts = new TreeMap<>();
    do {
      counts.clear();
      journal.rows().stream().filter(r -> r.path("kind").asText().equals("request"))
          .forEach(r -> counts.merge(r.path("rid").asText(), 1, Integer::sum));
      missing = routerRids.stream().filter(rid -> !counts.containsKey(rid)).toList();
      if (missing.isEmpty()) {
        break;
      }
      narwhal.testing.Poll.pause(20);
    } while (System.nanoTime() < deadline);
    assertThat(missing).as("rids answered but not journalled").isEmpty();
    assertThat(routerRids.stream().filter(rid -> counts.get(rid) != 1).toList()).as("rids journalled twice").isEmpty();
    // Each fuzz body reached admission at most once and is journalled under its client id.
    Map<String, Integer> clientRows = new TreeMap<>();
    journal.rows().stream().filter(r -> r.path("client_rid").asText("").startsWith("fuzz-"))
        .forEach(r -> clientRows.merge(r.path("client_rid").asText(), 1, Integer::sum));
    assertThat(clientRows.values()).as("journal rows per fuzz request").allMatch(n -> n == 1);
  }

  /** One raw exchange: the answer, or status -1 when the router closed without answering. */
  private static RawAnswer exchange(int port, List<String> pieces) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      try {
        for (String piece : pieces) {
          if (piece.equals("@close")) {
            socket.shutdownOutput();
          } else if (piece.startsWith("@")) {
            narwhal.testing.Poll.pause(Long.parseLong(piece.substring(1)));
          } else {
            out.write(piece.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
          }
        }
      } catch (SocketException e) {
        // The router may answer and close while a hostile request is still being sent; read what it said.
      }
      return RawAnswer.read(socket.getInputStream());
    }
  }

  private record RawAnswer(int status, String head, String body) {
    static RawAnswer read(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      try {
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
          int b = in.read();
          if (b < 0) {
            break;
          }
          head.write(b);
        }
      } catch (SocketException e) {
        // a reset after the answer, or instead of one
      }
      String text = head.toString(StandardCharsets.ISO_8859_1);
      if (!text.startsWith("HTTP/1.")) {
        return new RawAnswer(-1, text, "");
      }
      RawAnswer a = new RawAnswer(Integer.parseInt(text.substring(9, 12)), text, "");
      String length = a.header("content-length");
      byte[] body = length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length));
      return new RawAnswer(a.status, text, new String(body, StandardCharsets.UTF_8));
    }

    String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return name.equals("content-type") ? "" : null;
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }
}
