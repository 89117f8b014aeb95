package narwhal.bench.fleet;

import java.util.ArrayList;
import java.util.List;

/** How the simulated engines behave: model name, token seed, timing. Flags of {@code narwhal.sim.SimCli}. */
public record SimSettings(String model, long seed, double prefillMs, double prefillMsPerToken, double kvMsPerToken,
    double itlMs) {

  public List<String> flags() {
    List<String> f = new ArrayList<>();
    f.add("--model=" + model);
    f.add("--seed=" + seed);
    f.add("--prefill-ms=" + prefillMs);
    f.add("--prefill-ms-per-token=" + prefillMsPerToken);
    f.add("--kv-ms-per-token=" + kvMsPerToken);
    f.add("--itl-ms=" + itlMs);
    f.add("--io-threads=1");
    return f;
  }
}
