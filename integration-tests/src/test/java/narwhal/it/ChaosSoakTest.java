package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;

/**
 * A seeded randomized fault soak: many concurrent streaming and non-streaming, chat and completions
 * requests with random simulator faults, random client disconnects, and one decode engine frozen
 * and resumed midway. Afterwards every request has ended, every answer is well-formed (errors
 * carry the envelope, streams end with [DONE] or one error event, successes carry the oracle's
 * tokens), the journal has exactly one row per request, and nothing is left held.
 *
 * <p>CI runs it for {@value #DEFAULT_SECONDS} s; {@code -Dnarwhal.chaos.seconds=300} (or {@code
 * NARWHAL_CHAOS_SECONDS}) soaks longer, {@code -Dnarwhal.chaos.seed=N} ({@code NARWHAL_CHAOS_SEED})
 * replays a run. A failure names its seed.
 */
class ChaosSoakTest {

  private static final int DEFAULT_SECONDS = 12;
  private static final int CONCURRENCY = 96;

  @Test
  void randomFaultsDisconnectsAndAFrozenEngine_leaveEveryAnswerWellFormedAndTheJournalWhole() throws Exception {
    long seed = setting("narwhal.chaos.seed", "NARWHAL_CHAOS_SEED", System.nanoTime());
    long seconds = setting("narwhal.chaos.seconds", "NARWHAL_CHAOS_SECONDS", DEFAULT_SECONDS);
    System.out.println("ChaosSoakTest: seed " + seed + ", " + seconds + " s");
    try {
      soak(seed, seconds);
    } catch (AssertionError | Exception e) {
      throw new AssertionError("chaos soak failed; replay with -Dnarwhal.chaos.seed=" + seed
          + " -Dnarwhal.chaos.seconds=" + seconds + ": " + e.getMessage(), e);
    }
  }

  private void soak(long seed, long seconds) throws Exception {
    try (RoutedFleet fleet = RoutedFleet.start(2, 3, RoutedFleet.fastEngines().interTokenMillis(3).build(),
        // Short timeouts so requests on the frozen engine fail over or fail cleanly within the run.
        c -> c.withEngine(c.engine().withFirstTokenTimeoutS(2).withDecodeReadTimeoutS(1)), null)) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10)).build();
      Queue<String> problems = new ConcurrentLinkedQueue<>();
      Set<ChaosRequest> running = ConcurrentHashMap.newKeySet();
      List<ChaosRequest> sent = new ArrayList<>();
      Queue<ChaosRequest> sentQueue = new ConcurrentLinkedQueue<>();
      AtomicInteger next = new AtomicInteger();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY);
      for (int w = 0; w < CONCURRENCY; w++) {
        pool.execute(() -> {
          while (System.nanoTime() < deadline) {
            int i = next.getAndIncrement();
            ChaosRequest req = ChaosRequest.draw(new Random(seed * 1_000_003L + i), i);
            sentQueue.add(req);
            running.add(req);
            try {
              String problem = run(http, fleet.router.port(), req);
              if (problem != null) {
                problems.add(req + ": " + problem);
              }
            } catch (Exception e) {
              problems.add(req + ": " + e);
            } finally {
              running.remove(req);
            }
          }
        });
      }
      freezeOneDecodeEngineMidway(fleet.engine("d0"), seconds);
      pool.shutdown();
      // Every request has a 30 s client timeout; a worker still busy well after that is a hang.
      boolean ended = pool.awaitTermination(45, TimeUnit.SECONDS);
      pool.shutdownNow();
      assertThat(ended).as("requests still running (a hang): %s", running).isTrue();
      sent.addAll(sentQueue);
      assertThat(problems).as("malformed answers (of %d requests)", sent.size()).isEmpty();

      assertOneJournalRowPerRequest(fleet.journal(), sent);
      assertNothingLeftHeld(fleet);
      assertANormalRequestSucceeds(fleet);
    }
  }

  /** Freezes d0 from a third of the run for a third of it (at most 4 s), then resumes it. */
  private static void freezeOneDecodeEngineMidway(SimEngine engine, long seconds) throws InterruptedException {
    long third = TimeUnit.SECONDS.toMillis(seconds) / 3;
    narwhal.testing.Poll.pause(third);
    engine.freeze();
    try {
      narwhal.testing.Poll.pause(Math.min(third, 4000));
    } finally {
      engine.resume();
    }
    narwhal.testing.Poll.pause(TimeUnit.SECONDS.toMillis(seconds) - third - Math.min(third, 4000));
  }

  /** Sends one request; returns why its answer is malformed, or null. */
  private static String run(HttpClient http, int port, ChaosRequest req) throws Exception {
    if (req.disconnectAfterMillis() >= 0) {
      sendAndWalkAway(port, req);
      return null; // no answer to judge; the journal and the leak checks judge the router
    }
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + req.path()))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
        .header("X-Request-Id", req.clientRid()).POST(HttpRequest.BodyPublishers.ofString(req.body())).build();
    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
    return ChaosAnswers.problem(req, r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
  }

  /** A client that sends a whole request, then closes (half the time with a reset) at a random moment. */
  private static void sendAndWalkAway(int port, ChaosRequest req) throws IOException, InterruptedException {
    byte[] body = req.body().getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      out.write(("POST " + req.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "X-Request-Id: " + req.clientRid() + "\r\nContent-Length: " + body.length + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      narwhal.testing.Poll.pause(req.disconnectAfterMillis());
      if (req.disconnectAfterMillis() % 2 == 1) {
        socket.setSoLinger(true, 0);
      }
    }
  }

  private static void assertOneJournalRowPerRequest(JournalFile journal, List<ChaosRequest> sent)
      throws InterruptedException {
    Map<String, Integer> rows = new TreeMap<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      rows.clear();
      for (JsonNode row : journal.rows()) {
        String rid = row.path("client_rid").asText("");
        if (row.path("kind").asText().equals("request") && rid.startsWith("chaos-")) {
          rows.merge(rid, 1, Integer::sum);
        }
      }
      if (rows.size() >= sent.size() || System.nanoTime() > deadline) {
        break;
      }
      narwhal.testing.Poll.pause(20);
    }
    List<String> missing = sent.stream().map(ChaosRequest::toString)
        .filter(s -> !rows.containsKey(s.substring(0, s.indexOf(' ')))).limit(20).toList();
    assertThat(missing).as("requests without a journal row (first 20)").isEmpty();
    assertThat(rows.entrySet().stream().filter(e -> e.getValue() != 1).limit(20).toList())
        .as("requests with more than one journal row").isEmpty();
    assertThat(rows).as("journal rows for requests never sent").hasSize(sent.size());
  }

  /** Admission seats, reservations and engine streams all come back: nothing leaked. */
  private static void assertNothingLeftHeld(RoutedFleet fleet) throws InterruptedException {
    fleet.assertReservationsReturnToZero();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int inFlight;
    long engineStreams;
    do {
      narwhal.testing.Poll.pause(20);
      inFlight = RouterClient.json(fleet.client.get("/narwhal/state").body()).path("admission").path("in_flight")
          .asInt(-1);
      engineStreams = fleet.fleet.engines().stream().mapToLong(e -> e.stats().activeStreams()).sum();
    } while ((inFlight != 0 || engineStreams != 0) && System.nanoTime() < deadline);
    assertThat(inFlight).as("router in-flight requests").isZero();
    assertThat(engineStreams).as("streams the engines still generate").isZero();
  }

  /** The router still serves once the chaos is over (a few tries while breakers recover). */
  private static void assertANormalRequestSucceeds(RoutedFleet fleet) throws InterruptedException {
    String prompt = "after the chaos";
    RouterClient.SseResponse r = null;
    for (int attempt = 0; attempt < 20; attempt++) {
      r = fleet.client.stream("/v1/completions",
          "{\"model\":\"narwhal-sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":8,\"stream\":true}");
      if (r.status() == 200 && r.endsWithDone()) {
        break;
      }
      narwhal.testing.Poll.pause(250);
    }
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.text()).isEqualTo(SimEngine.expectedText(0, prompt, 8));
  }

  private static long setting(String property, String env, long fallback) {
    String value = System.getProperty(property, System.getenv(env));
    return value == null || value.isBlank() ? fallback : Long.parseLong(value.trim());
  }
}
