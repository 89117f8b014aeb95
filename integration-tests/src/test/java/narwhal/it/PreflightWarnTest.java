package narwhal.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import narwhal.server.DemoFleet;
import narwhal.sim.SimEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code narwhal serve --preflight=warn} serves the fleet despite a failed preflight, but not the
 * engine that failed it: that one starts held out of placement and no request reaches it.
 */
class PreflightWarnTest {

  private static final Pattern SERVE_URL = Pattern.compile("narwhal: serving (http://\\S+)");
  private static final Duration STARTUP = Duration.ofSeconds(40);

  @Test
  void anEngineThatFailedPreflight_startsHeld_andServesNoRequest(@TempDir Path dir) throws Exception {
    EventLoopGroup simGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    DemoFleet engines = DemoFleet.start(1, 1, RoutedFleet.fastEngines().build(), simGroup);
    // d1 serves another model: its model check fails, and so does every inference probe.
    try (SimEngine wrongModel = SimEngine.start(RoutedFleet.fastEngines().model("another-model").port(0).build())) {
      Path fleet = dir.resolve("fleet.json");
      Files.writeString(fleet, String.join("\n",
          "{",
          "  \"schema\": \"narwhal.fleet\",",
          "  \"schema_version\": 1,",
          "  \"model\": \"" + DemoFleet.MODEL + "\",",
          "  \"engines\": [",
          "    {\"iid\": \"p0\", \"url\": \"" + engines.engine("p0").baseUrl() + "\", \"role\": \"prefill\"},",
          "    {\"iid\": \"d0\", \"url\": \"" + engines.engine("d0").baseUrl() + "\", \"role\": \"decode\"},",
          "    {\"iid\": \"d1\", \"url\": \"" + wrongModel.baseUrl() + "\", \"role\": \"decode\"}",
          "  ],",
          "  \"slo\": {\"ttft_s\": 2.0, \"tpot_s\": 0.1}",
          "}"));
      try (ChildProcess serve = ChildProcess.narwhal("serve", "serve", "--fleet", fleet.toString(), "--host",
          "127.0.0.1", "--port", "0", "--grpc-port", "0", "--preflight=warn")) {
        RouterClient client = new RouterClient(serve.awaitLine(SERVE_URL, STARTUP));
        assertThat(serve.output()).contains("held out of placement until a readmission probe passes: d1");
        narwhal.testing.Poll.until("d1 shown held", () -> stateOf(client, "d1").equals("held"));

        for (int i = 0; i < 6; i++) {
          HttpResponse<String> r = client.post("/v1/completions",
              "{\"model\":\"" + DemoFleet.MODEL + "\",\"prompt\":\"warn " + i + "\",\"max_tokens\":3}");
          assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        assertThat(wrongModel.received().stream()
                .filter(q -> q.body() != null && q.body().toString().contains("warn ")).count())
            .as("client requests that reached d1 (readmission probes aside)").isZero();
        assertThat(stateOf(client, "d1")).isEqualTo("held");
      }
    } finally {
      engines.close();
      simGroup.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  private static String stateOf(RouterClient client, String iid) {
    try {
      JsonNode state = new ObjectMapper().readTree(client.get("/narwhal/state").body());
      for (JsonNode e : state.path("engines")) {
        if (e.path("iid").asText().equals(iid)) {
          return e.path("state").asText();
        }
      }
      return "absent";
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
