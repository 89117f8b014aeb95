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
import java.nio.file.Path;
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
import narwhal.testing.Poll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos soak through two replicas run as processes over a real etcd, clients spread over both,
 * and one replica SIGKILLed mid-run and restarted. Outside the killed replica's own requests in
 * flight at the kill (or sent to it while it was down) every answer is well-formed and none hangs;
 * each replica's journal has exactly one row per request it answered (the killed replica's rows of
 * requests that ended more than a second before the kill, and every row after its restart), none
 * twice, none for a request never sent to it.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ReplicaChaosTest {

  private static final int SECONDS = 15;
  private static final int CONCURRENCY = 32;
  private static final String EXTRA = "\"engine\": {\"first_token_timeout_s\": 2, \"decode_read_timeout_s\": 1}";

  /** One request as the soak sent it: where, when, and how it ended. */
  private record Sent(ChaosRequest req, int replica, long startNanos, long endNanos, boolean transportError) {}

  @Test
  void chaosThroughTwoReplicas_oneKilledAndRestartedMidRun_nothingLostOrDuplicatedOutsideItsOwnStreams(
      @TempDir Path dir) throws Exception {
    long seed = System.nanoTime();
    System.out.println("ReplicaChaosTest: seed " + seed);
    try (ReplicaProcesses replicas = new ReplicaProcesses(dir, 2, 2, 3,
        RoutedFleet.fastEngines().interTokenMillis(3).build(), EXTRA)) {
      int[] ports = {port(replicas, 0), port(replicas, 1)};
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5)).build();
      Queue<String> problems = new ConcurrentLinkedQueue<>();
      Queue<Sent> sent = new ConcurrentLinkedQueue<>();
      Set<ChaosRequest> running = ConcurrentHashMap.newKeySet();
      AtomicInteger next = new AtomicInteger();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
      ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY);
      for (int w = 0; w < CONCURRENCY; w++) {
        pool.execute(() -> {
          while (System.nanoTime() < deadline) {
            int i = next.getAndIncrement();
            ChaosRequest req = ChaosRequest.draw(new Random(seed * 1_000_003L + i), i);
            int replica = i % 2;
            running.add(req);
            long start = System.nanoTime();
            String problem = null;
            boolean transport = false;
            try {
              problem = run(http, ports[replica], req);
            } catch (IOException e) {
              transport = true;
              problem = e.toString();
            } catch (Exception e) {
              problem = e.toString();
            } finally {
              running.remove(req);
            }
            sent.add(new Sent(req, replica, start, System.nanoTime(), transport));
            if (problem != null) {
              problems.add(replica + " " + req.clientRid() + " " + (transport ? "transport " : "") + problem);
            }
          }
        });
      }
      Poll.pause(TimeUnit.SECONDS.toMillis(SECONDS) / 3);
      long killedAt = System.nanoTime();
      replicas.kill(1);
      Poll.pause(2000);
      replicas.restart(1);
      Poll.until("r1 ready again", Duration.ofSeconds(30),
          () -> replicas.client(1).get("/ready").statusCode() == 200);
      long backAt = System.nanoTime();
      ports[1] = port(replicas, 1);
      pool.shutdown();
      boolean ended = pool.awaitTermination(60, TimeUnit.SECONDS);
      pool.shutdownNow();
      assertThat(ended).as("requests still running (a hang): %s", running).isTrue();

      // The killed replica's own: in flight at the kill, or sent to it before it was back.
      List<Sent> all = new ArrayList<>(sent);
      List<String> excused = new ArrayList<>();
      List<String> unexcused = new ArrayList<>();
      for (String p : problems) {
        String[] parts = p.split(" ", 3);
        Sent s = all.stream().filter(x -> x.req().clientRid().equals(parts[1])).findFirst().orElseThrow();
        boolean own = s.replica() == 1 && s.startNanos() < backAt && s.endNanos() >= killedAt;
        (own ? excused : unexcused).add(p);
      }
      System.out.printf("ReplicaChaosTest: %d requests, %d failed as the killed replica's own, %d otherwise%n",
          all.size(), excused.size(), unexcused.size());
      assertThat(unexcused).as("malformed or failed answers outside the killed replica's own (of %d)", all.size())
          .isEmpty();

      assertJournalExact(replicas.journal(0), all.stream().filter(s -> s.replica() == 0).toList(), List.of());
      List<Sent> toR1 = all.stream().filter(s -> s.replica() == 1).toList();
      long flushSlack = TimeUnit.SECONDS.toNanos(1);
      assertJournalExact(replicas.journal(1),
          toR1.stream().filter(s -> s.endNanos() < killedAt - flushSlack || s.startNanos() >= backAt).toList(),
          toR1.stream().filter(s -> !(s.endNanos() < killedAt - flushSlack || s.startNanos() >= backAt)).toList());
    }
  }

  private static int port(ReplicaProcesses replicas, int i) {
    String url = replicas.client(i).base();
    return Integer.parseInt(url.substring(url.lastIndexOf(':') + 1).replaceAll("/.*", ""));
  }

  /**
   * One row per request in {@code must}, at most one per request in {@code may} (the killed
   * replica's requests around the kill), and none for anything else.
   */
  private static void assertJournalExact(Path journal, List<Sent> must, List<Sent> may) throws InterruptedException {
    Map<String, Integer> rows = new TreeMap<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    Set<String> mustIds = new java.util.HashSet<>();
    must.forEach(s -> mustIds.add(s.req().clientRid()));
    while (true) {
      rows.clear();
      for (JsonNode row : new JournalFile(journal).rows()) {
        String rid = row.path("client_rid").asText("");
        if (row.path("kind").asText().equals("request") && rid.startsWith("chaos-")) {
          rows.merge(rid, 1, Integer::sum);
        }
      }
      if (rows.keySet().containsAll(mustIds) || System.nanoTime() > deadline) {
        break;
      }
      Thread.sleep(50);
    }
    Set<String> allowed = new java.util.HashSet<>(mustIds);
    may.forEach(s -> allowed.add(s.req().clientRid()));
    assertThat(mustIds.stream().filter(id -> !rows.containsKey(id)).limit(20).toList())
        .as("%s: requests without a journal row (first 20)", journal.getFileName()).isEmpty();
    assertThat(rows.entrySet().stream().filter(e -> e.getValue() != 1).limit(20).toList())
        .as("%s: requests with more than one row", journal.getFileName()).isEmpty();
    assertThat(rows.keySet().stream().filter(id -> !allowed.contains(id)).limit(20).toList())
        .as("%s: rows for requests never sent to this replica", journal.getFileName()).isEmpty();
  }

  /** Sends one request; returns why its answer is malformed, or null. */
  private static String run(HttpClient http, int port, ChaosRequest req) throws Exception {
    if (req.disconnectAfterMillis() >= 0) {
      walkAway(port, req);
      return null;
    }
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + req.path()))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
        .header("X-Request-Id", req.clientRid()).POST(HttpRequest.BodyPublishers.ofString(req.body())).build();
    HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
    return ChaosAnswers.problem(req, r.statusCode(), r.headers().firstValue("content-type").orElse(""), r.body());
  }

  private static void walkAway(int port, ChaosRequest req) throws IOException, InterruptedException {
    byte[] body = req.body().getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      out.write(("POST " + req.path() + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "X-Request-Id: " + req.clientRid() + "\r\nContent-Length: " + body.length + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      Thread.sleep(req.disconnectAfterMillis());
      if (req.disconnectAfterMillis() % 2 == 1) {
        socket.setSoLinger(true, 0);
      }
    }
  }
}
