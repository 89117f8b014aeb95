package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import narwhal.config.CacheConfig;
import narwhal.config.CacheEngineConfig;
import narwhal.config.CacheMode;
import narwhal.config.FleetConfig;
import narwhal.prefix.PrefixCacheView;
import narwhal.server.DemoFleet;
import narwhal.server.RouterServer;
import narwhal.sim.FaultPlan;
import narwhal.sim.KvEventsSettings;
import narwhal.sim.PrefixCaching;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import narwhal.sim.gpu.GpuProfile;
import narwhal.testing.Poll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cache-aware placement end to end over real sockets: GPU-timed simulated vLLM engines with a
 * prefix cache publishing their KV events on ZeroMQ, a router in {@code cache.mode: events}
 * following them. A conversation's first turn lands on p1 (p0 refuses it once), so its prefix is
 * cached on p1 only; the follow-up turn, which p0 would get on an idle fleet (the lower iid wins a
 * tie), is prefilled on p1, and the cached tokens p1 reports equal what the index predicted.
 */
class CacheAwarePlacementTest {

  private final EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private DemoFleet fleet;
  private RouterServer router;

  @TempDir Path dir;

  private static final String SYSTEM = String.join(" ", java.util.Collections.nCopies(25,
      "you are a careful assistant who answers in short plain sentences")).trim();

  private static SimOptions engines() {
    GpuProfile gpu = GpuProfile.builder().prefillBaseMillis(1).prefillMillisPerToken(0.01).decodeBaseMillis(1)
        .kvCapacityTokens(65_536).build();
    return SimOptions.builder().model(DemoFleet.MODEL).maxModelLen(8192).gpu(gpu)
        .prefixCaching(PrefixCaching.on(16).withEvents(
            KvEventsSettings.of("tcp://127.0.0.1:*", "tcp://127.0.0.1:*", "kv-events")))
        .build();
  }

  private RouterClient start(CacheMode mode, Path journal) {
    fleet = DemoFleet.start(2, 1, engines(), simGroup);
    Map<String, CacheEngineConfig> endpoints = new LinkedHashMap<>();
    for (String iid : List.of("p0", "p1", "d0")) {
      SimEngine e = fleet.engine(iid);
      endpoints.put(iid, new CacheEngineConfig(true, e.kvEventsEndpoint(), "kv-events", e.kvReplayEndpoint()));
    }
    FleetConfig config = fleet.config()
        .withCache(CacheConfig.defaults().withMode(mode).withEngines(endpoints))
        .withServing(fleet.config().serving().withMaxAttempts(2).withRetryBackoff(0.001, 0.01));
    router = RouterServer.start(config, "127.0.0.1", 0, null, journal, boss, workers);
    return new RouterClient("http://127.0.0.1:" + router.port());
  }

  @AfterEach
  void stop() {
    if (router != null) {
      router.close();
    }
    if (fleet != null) {
      fleet.close();
    }
    boss.shutdownGracefully();
    workers.shutdownGracefully();
    simGroup.shutdownGracefully();
  }

  @Test
  void aFollowUpTurn_isPrefilledWhereItsPrefixIsCached_andTheEngineReportsWhatWasPredicted() throws Exception {
    Path journalPath = dir.resolve("journal.jsonl");
    RouterClient client = start(CacheMode.EVENTS, journalPath);
    JournalFile journal = new JournalFile(journalPath);
    PrefixCacheView index = router.router().cache().view();
    awaitSubscribed(index, "p0");
    awaitSubscribed(index, "p1");

    // Turn 1: p0 refuses its prefill once, so the retry puts the prefix on p1.
    fleet.engine("p0").setFaults(FaultPlan.of("status=503,count=1,phase=prefill"));
    ArrayNode messages = RouterClient.JSON.createArrayNode();
    messages.addObject().put("role", "system").put("content", SYSTEM);
    messages.addObject().put("role", "user").put("content", "what is a narwhal");
    JsonNode first = chat(client, messages, "turn-1");
    String reply = first.path("choices").get(0).path("message").path("content").asText();
    JsonNode firstRow = journal.awaitRowForClientRid("turn-1");
    assertThat(firstRow.path("prefill_iid").asText()).isEqualTo("p1");
    assertThat(firstRow.path("cache_placement").asText()).isEqualTo("miss");

    // The router learns from p1's events that it holds the first turn's prompt.
    int[] firstPrompt = SimEngine.tokenIds(SYSTEM + "\nwhat is a narwhal");
    Poll.until("the index learns p1 holds the first turn", Duration.ofSeconds(10),
        () -> index.cachedTokens("p1", index.blocks(firstPrompt)) > 0);

    // Turn 2 quotes turn 1: its prefix is on p1, and p0 (idle, the lower iid) is not chosen.
    messages.addObject().put("role", "assistant").put("content", reply);
    messages.addObject().put("role", "user").put("content", "and where does it live");
    chat(client, messages, "turn-2");
    JsonNode row = journal.awaitRowForClientRid("turn-2");
    assertThat(row.path("prefill_iid").asText()).isEqualTo("p1");
    assertThat(row.path("cache_placement").asText()).isEqualTo("hit");
    long predicted = row.path("predicted_cached_tokens").asLong();
    assertThat(predicted).isGreaterThanOrEqualTo(16L * (firstPrompt.length / 16 - 1)).isPositive();
    assertThat(row.path("cached_tokens").asLong()).as("what p1 reported").isEqualTo(predicted);

    JsonNode state = RouterClient.json(client.get("/narwhal/state").body()).path("cache");
    assertThat(state.path("mode").asText()).isEqualTo("events");
    assertThat(state.path("engines").path("p1").path("trust").asText()).isEqualTo("events");
    assertThat(state.path("engines").path("p1").path("self_check").path("reported_cached_tokens").asLong())
        .isEqualTo(predicted);
    String metrics = client.get("/metrics").body();
    assertThat(metrics).contains("narwhal_cache_placements_total{placement=\"hit\"} 1");
  }

  @Test
  void withTheCacheOff_theFollowUpGoesByLoad_andTheJournalSaysOff() throws Exception {
    Path journalPath = dir.resolve("journal.jsonl");
    RouterClient client = start(CacheMode.OFF, journalPath);
    JournalFile journal = new JournalFile(journalPath);
    fleet.engine("p0").setFaults(FaultPlan.of("status=503,count=1,phase=prefill"));
    ArrayNode messages = RouterClient.JSON.createArrayNode();
    messages.addObject().put("role", "system").put("content", SYSTEM);
    messages.addObject().put("role", "user").put("content", "what is a narwhal");
    String reply = chat(client, messages, "turn-1").path("choices").get(0).path("message").path("content").asText();
    messages.addObject().put("role", "assistant").put("content", reply);
    messages.addObject().put("role", "user").put("content", "and where does it live");
    chat(client, messages, "turn-2");
    JsonNode row = journal.awaitRowForClientRid("turn-2");
    assertThat(row.path("prefill_iid").asText()).isEqualTo("p0");
    assertThat(row.path("cache_placement").asText()).isEqualTo("off");
    assertThat(row.path("predicted_cached_tokens").isNull()).isTrue();
    assertThat(RouterClient.json(client.get("/narwhal/state").body()).has("cache")).isFalse();
    assertThat(row.path("input_sized").asText()).as("no tokenize round trip with the cache off").isEqualTo("estimated");
  }

  private static JsonNode chat(RouterClient client, ArrayNode messages, String clientRid) {
    ObjectNode body = RouterClient.JSON.createObjectNode();
    body.put("model", DemoFleet.MODEL);
    body.set("messages", messages.deepCopy());
    body.put("max_tokens", 8);
    HttpResponse<String> response = send(client.base() + "/v1/chat/completions", body.toString(), clientRid);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return RouterClient.json(response.body());
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> send(String url, String body, String requestId) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
          .header("X-Request-Id", requestId).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * PUB/SUB drops what is published before the subscription lands: requests straight to the engine
   * until the router's index has seen one of its messages (its state's last_seq).
   */
  private void awaitSubscribed(PrefixCacheView index, String iid) {
    SimEngine engine = fleet.engine(iid);
    int[] n = {0};
    Poll.until("the router follows " + iid + "'s KV events", Duration.ofSeconds(20), () -> {
      String prompt = "warm up " + iid + " " + (n[0]++) + " " + "x ".repeat(20);
      send(engine.baseUrl() + "/v1/completions",
          "{\"model\":\"" + DemoFleet.MODEL + "\",\"prompt\":\"" + prompt + "\",\"max_tokens\":1}", "warm-up");
      Object seq = ((Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) router.router().cache().state().get("engines")).get(iid)))
          .get("last_seq");
      return seq != null;
    });
  }
}
