package narwhal.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.FleetConfigException;
import narwhal.server.FleetFiles;
import narwhal.sim.SimDialect;
import narwhal.sim.SimOptions;

/**
 * Fleets of SGLang-mode simulators behind the router, configured the way an operator would: a
 * fleet file read by the server's own reader (validated against the dialects present), naming
 * each prefill sim's HTTP port as its {@code dialect_options.bootstrap_port}.
 */
final class SglangFleets {

  private SglangFleets() {}

  /** Fast SGLang-mode engines; a leg waits at most {@code kvWaitMillis} for its sibling's KV. */
  static SimOptions engines(long kvWaitMillis) {
    return RoutedFleet.fastEngines().dialect(SimDialect.SGLANG).kvWaitMillis(kvWaitMillis).build();
  }

  /**
   * The demo fleet's engines rewritten as a fleet file and read back: {@code engine.dialect} is
   * sglang when {@code fleetWide}, else each entry overrides the vllm default with its own
   * {@code dialect}. {@code engineExtra} is more of the {@code engine} section (e.g. timeouts).
   */
  static FleetConfig fleetFile(FleetConfig demo, boolean fleetWide, String engineExtra) {
    List<String> entries = new ArrayList<>();
    for (EngineSpec e : demo.engines()) {
      entries.add("{\"iid\":\"" + e.iid() + "\",\"url\":\"" + e.url() + "\",\"role\":\""
          + e.role().name().toLowerCase(java.util.Locale.ROOT) + "\""
          + (fleetWide ? "" : ",\"dialect\":\"sglang\"")
          + ",\"dialect_options\":{\"bootstrap_port\":" + e.url().getPort() + "}}");
    }
    String engine = "{" + (fleetWide ? "\"dialect\":\"sglang\"" : "\"dialect\":\"vllm\"")
        + (engineExtra.isEmpty() ? "" : "," + engineExtra) + "}";
    String json = "{\"schema\":\"narwhal.fleet\",\"schema_version\":1,\"model\":\"" + demo.model() + "\","
        + "\"slo\":{\"ttft_s\":1,\"tpot_s\":0.1},\"engine\":" + engine + ","
        // The breaker stays out of the way: these tests count legs, not ejections.
        + "\"recovery\":{\"eject_after\":1000},"
        + "\"engines\":[" + String.join(",", entries) + "]}";
    try {
      Path file = Files.createTempFile("sglang-fleet", ".json");
      try {
        Files.writeString(file, json);
        return FleetFiles.read(file);
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (FleetConfigException e) {
      throw new AssertionError("test fleet file rejected: " + e.getMessage(), e);
    }
  }
}
