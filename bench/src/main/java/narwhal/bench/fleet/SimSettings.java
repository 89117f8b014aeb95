package narwhal.bench.fleet;

import java.util.ArrayList;
import java.util.List;

/**
 * How the simulated engines behave: model name, token seed, timing, and any further flags of
 * {@code narwhal.sim.SimCli} (the adaptive benchmark's GPU-like timing mode), appended last so they
 * win over the fixed ones.
 */
public record SimSettings(String model, long seed, double prefillMs, double prefillMsPerToken, double kvMsPerToken,
    double itlMs, List<String> extraFlags) {

  public SimSettings {
    extraFlags = List.copyOf(extraFlags);
  }

  /** The relay benchmark's engines: today's fixed timing, no further flags. */
  public SimSettings(String model, long seed, double prefillMs, double prefillMsPerToken, double kvMsPerToken,
      double itlMs) {
    this(model, seed, prefillMs, prefillMsPerToken, kvMsPerToken, itlMs, List.of());
  }

  public List<String> flags() {
    List<String> f = new ArrayList<>();
    f.add("--model=" + model);
    f.add("--seed=" + seed);
    f.add("--prefill-ms=" + prefillMs);
    f.add("--prefill-ms-per-token=" + prefillMsPerToken);
    f.add("--kv-ms-per-token=" + kvMsPerToken);
    f.add("--itl-ms=" + itlMs);
    f.add("--io-threads=1");
    f.addAll(extraFlags);
    return f;
  }
}
