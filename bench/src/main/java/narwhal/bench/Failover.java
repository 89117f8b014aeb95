package narwhal.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.bench.fleet.EngineProcesses;
import narwhal.bench.load.Workload;
import org.jspecify.annotations.Nullable;

/**
 * The replica bench's failover runs: the elected role controller SIGKILLed (how long until a
 * survivor leads), and an engine fault only one replica sees (how long until the other has applied
 * the verdict, and the readmission after it), each repeated and reported as p50/p99/max.
 */
final class Failover {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Failover() {}

  /** Kills the leader {@code n} times; restarts it each time and waits until it has rejoined. */
  static Map<String, Object> leaderKills(ReplicasCommand c, Bench.Env env, List<ReplicasCommand.Replica> replicas,
      Path fleet, Path logs, Path dir, String routerOpts, int n, int leaseTtlS) throws InterruptedException {
    List<Double> elected = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      int leader = awaitLeader(replicas, Duration.ofSeconds(30));
      if (leader < 0) {
        Stack.log("failover: no leader within 30 s; stopping the kills");
        break;
      }
      ReplicasCommand.Replica dead = replicas.get(leader);
      long killed = System.nanoTime();
      ProcessHandle.of(dead.process.pid()).ifPresent(ProcessHandle::destroyForcibly);
      int next = -1;
      long limit = killed + Duration.ofSeconds(leaseTtlS + 10L).toNanos();
      while (next < 0 && System.nanoTime() < limit) {
        for (int i = 0; i < replicas.size(); i++) {
          if (i != leader && "leading".equals(controller(ReplicasCommand.state(replicas.get(i).port)))) {
            next = i;
          }
        }
        Thread.sleep(5);
      }
      double seconds = (System.nanoTime() - killed) / 1e9;
      Stack.log(String.format("failover %d: %s killed, %s", k + 1, dead.name,
          next < 0 ? "no new leader" : replicas.get(next).name + " leads after " + ReplicasCommand.fmt(seconds) + " s"));
      if (next >= 0) {
        elected.add(seconds);
      }
      dead.process.close();
      replicas.set(leader, ReplicasCommand.Replica.start(c, env, fleet, dead.name, logs, dir, routerOpts));
    }
    Map<String, Object> m = summary(elected, "s");
    m.put("lease_ttl_s", leaseTtlS);
    m.put("controller_step_s", 0.1);
    return m;
  }

  /**
   * Makes engine d0 fail for requests through the first replica only, {@code n} times: measures,
   * from both journals, how long after the first replica took d0 out the second applied it, and the
   * same for its readmission once the fault is cleared.
   */
  static Map<String, Object> verdictPropagation(List<ReplicasCommand.Replica> replicas, EngineProcesses engines, int n,
      Workload workload) throws InterruptedException {
    ReplicasCommand.Replica a = replicas.get(0);
    String faults = engines.decodeTargets().get(0).url() + "/admin/faults";
    for (int k = 0; k < n; k++) {
      send("POST", faults, "\"status=500,phase=decode\"");
      long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      int i = 0;
      while (allActive(replicas, "d0") && System.nanoTime() < until) {
        send("POST", "http://127.0.0.1:" + a.port + "/v1/completions",
            "{\"model\":\"" + workload.model() + "\",\"prompt\":\"verdict " + k + " " + i++ + "\",\"max_tokens\":2}");
      }
      waitFor(() -> noneActive(replicas, "d0"), Duration.ofSeconds(10));
      send("DELETE", faults, "");
      waitFor(() -> allActive(replicas, "d0"), Duration.ofSeconds(20));
    }
    Thread.sleep(1000); // the journals' writers flush
    List<Double> out = new ArrayList<>();
    List<Double> back = new ArrayList<>();
    for (ReplicasCommand.Replica r : replicas) {
      if (r == replicas.get(0)) {
        continue;
      }
      pair(events(replicas), r.name, out, back);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("out_of_placement_everywhere", summary(out, "ms"));
    m.put("readmitted_everywhere", summary(back, "ms"));
    return m;
  }

  /** Every breaker event row of every replica's journal, as (replica, event, at, by). */
  private static List<Event> events(List<ReplicasCommand.Replica> replicas) {
    List<Event> all = new ArrayList<>();
    for (ReplicasCommand.Replica r : replicas) {
      try {
        for (String line : Files.readAllLines(r.journal)) {
          JsonNode row = JSON.readTree(line);
          String ev = row.path("event").asText("");
          if (row.path("iid").asText("").equals("d0")
              && (ev.equals("engine_held") || ev.equals("engine_ejected") || ev.equals("readmitted"))) {
            all.add(new Event(r.name, ev.equals("readmitted") ? "in" : "out", row.path("at").asDouble(),
                row.path("by").asText(null)));
          }
        }
      } catch (IOException e) {
        Stack.log("cannot read " + r.journal + ": " + e);
      }
    }
    return all;
  }

  private record Event(String replica, String kind, double at, @Nullable String by) {}

  /** For each decision (a row without {@code by}), the first row on {@code other} applying it after it. */
  private static void pair(List<Event> events, String other, List<Double> out, List<Double> back) {
    for (Event decided : events) {
      if (decided.by() != null || decided.replica().equals(other)) {
        continue;
      }
      Event applied = null;
      for (Event e : events) {
        if (e.replica().equals(other) && decided.replica().equals(e.by()) && e.kind().equals(decided.kind())
            && e.at() >= decided.at() - 0.001 && (applied == null || e.at() < applied.at())) {
          applied = e;
        }
      }
      if (applied != null && applied.at() - decided.at() < 10) {
        (decided.kind().equals("out") ? out : back).add(Math.max(0, (applied.at() - decided.at()) * 1000));
      }
    }
  }

  private static Map<String, Object> summary(List<Double> values, String unit) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("unit", unit);
    m.put("n", sorted.size());
    if (!sorted.isEmpty()) {
      m.put("p50", ReplicasCommand.round(sorted.get((sorted.size() - 1) / 2)));
      m.put("p99", ReplicasCommand.round(sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1)));
      m.put("max", ReplicasCommand.round(sorted.get(sorted.size() - 1)));
    }
    return m;
  }

  private static int awaitLeader(List<ReplicasCommand.Replica> replicas, Duration limit) throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < until) {
      int leader = -1;
      boolean allJoined = true;
      for (int i = 0; i < replicas.size(); i++) {
        JsonNode s = ReplicasCommand.state(replicas.get(i).port);
        allJoined &= s != null && "ok".equals(s.path("cluster").path("status").asText());
        if ("leading".equals(controller(s))) {
          leader = i;
        }
      }
      if (leader >= 0 && allJoined) {
        return leader;
      }
      Thread.sleep(20);
    }
    return -1;
  }

  private static @Nullable String controller(@Nullable JsonNode state) {
    return state == null ? null : state.path("cluster").path("controller").asText(null);
  }

  private static boolean allActive(List<ReplicasCommand.Replica> replicas, String iid) {
    return replicas.stream().allMatch(r -> "active".equals(engineState(r, iid)));
  }

  private static boolean noneActive(List<ReplicasCommand.Replica> replicas, String iid) {
    return replicas.stream().noneMatch(r -> "active".equals(engineState(r, iid)));
  }

  private static @Nullable String engineState(ReplicasCommand.Replica r, String iid) {
    JsonNode s = ReplicasCommand.state(r.port);
    if (s == null) {
      return null;
    }
    for (JsonNode e : s.path("engines")) {
      if (e.path("iid").asText().equals(iid)) {
        return e.path("state").asText();
      }
    }
    return null;
  }

  private static void waitFor(java.util.function.BooleanSupplier done, Duration limit) throws InterruptedException {
    long until = System.nanoTime() + limit.toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < until) {
      Thread.sleep(10);
    }
  }

  private static void send(String method, String url, String body) {
    try {
      HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
          .header("Content-Type", "application/json")
          .method(method, body.isEmpty() ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // a failed request is what the fault makes; the journals measure the rest
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
