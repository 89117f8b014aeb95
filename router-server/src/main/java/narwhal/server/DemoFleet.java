package narwhal.server;

import io.netty.channel.EventLoopGroup;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.config.ProfilesConfig;
import narwhal.core.profile.ProfileRow;
import narwhal.core.profile.ProfilesDocument;
import narwhal.core.profile.ProfilesFile;
import narwhal.core.checks.EngineFacts;
import narwhal.sim.Attestation;
import narwhal.sim.SimEngine;
import org.jspecify.annotations.Nullable;
import narwhal.sim.SimOptions;

/** A fleet of simulated engines in this process: what {@code narwhal demo} and tests route to. */
public final class DemoFleet implements AutoCloseable {

  public static final String MODEL = "narwhal-sim";

  private final List<SimEngine> engines;
  private final FleetConfig config;

  private DemoFleet(List<SimEngine> engines, FleetConfig config) {
    this.engines = engines;
    this.config = config;
  }

  /**
   * Starts {@code prefill} prefill engines and {@code decode} decode engines on ephemeral ports,
   * configured by {@code options} (port and engine id are set per engine).
   */
  public static DemoFleet start(int prefill, int decode, SimOptions options, EventLoopGroup group) {
    List<SimEngine> started = new ArrayList<>();
    List<EngineSpec> specs = new ArrayList<>();
    try {
      for (int i = 0; i < prefill + decode; i++) {
        boolean isPrefill = i < prefill;
        String iid = isPrefill ? "p" + i : "d" + (i - prefill);
        SimOptions engineOptions = options.toBuilder().port(0).engineId("sim-" + iid).build();
        SimEngine engine = SimEngine.start(engineOptions, group);
        started.add(engine);
        specs.add(EngineSpec.of(iid, engine.baseUrl(), isPrefill ? EngineRole.PREFILL : EngineRole.DECODE));
      }
    } catch (RuntimeException e) {
      started.forEach(SimEngine::close);
      throw e;
    }
    return new DemoFleet(List.copyOf(started), FleetConfig.of(options.model(), specs));
  }

  /** The fleet configuration (all defaults) pointing at these engines. */
  public FleetConfig config() {
    return config;
  }

  /**
   * The fleet configuration with a profiles file holding every engine's exact profile (its
   * simulator options, see {@link SimProfiles}), written to {@code file}: a fleet as it is after
   * {@code narwhal profile}, for the demo and for tests that need one.
   */
  public FleetConfig configWithExactProfiles(Path file) throws IOException {
    List<ProfileRow> rows = new ArrayList<>();
    Instant now = Instant.now();
    for (int i = 0; i < engines.size(); i++) {
      EngineSpec spec = config.engines().get(i);
      rows.add(SimProfiles.exact(spec.iid(), spec.url().toString(), engines.get(i).options(),
          generation(engines.get(i)), now));
    }
    ProfilesFile.write(file, new ProfilesDocument(rows));
    return config.withProfiles(new ProfilesConfig(file.toString(), config.profiles().maxDecodeFitMape(),
        config.profiles().maxDecodeCvMape()));
  }

  /** The process generation the engine's attestation document reports, as the router reads it. */
  private static @Nullable String generation(SimEngine engine) throws IOException {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(engine.baseUrl() + Attestation.PATH))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      JsonNode g = new ObjectMapper().readTree(r.body()).get(EngineFacts.PROCESS_GENERATION);
      return g == null || g.isNull() ? null : g.asText();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading " + engine.baseUrl() + Attestation.PATH, e);
    }
  }

  public List<SimEngine> engines() {
    return engines;
  }

  /** The engine serving instance {@code iid} (p0, p1, ..., d0, d1, ...). */
  public SimEngine engine(String iid) {
    for (int i = 0; i < config.engines().size(); i++) {
      if (config.engines().get(i).iid().equals(iid)) {
        return engines.get(i);
      }
    }
    throw new IllegalArgumentException("no engine " + iid);
  }

  @Override
  public void close() {
    engines.forEach(SimEngine::close);
  }
}
