package narwhal.bench.fleet;

import java.util.ArrayList;
import java.util.List;

/**
 * How the simulated engines behave: model name, token seed, timing, as flags of {@code
 * narwhal.sim.SimCli}. The relay benchmark's engines use the simple timing mode (fixed prefill and
 * inter-token times); the adaptive benchmark's use the gpu mode, whose flags come whole in {@code
 * extraFlags} (the simulator refuses simple-mode flags in gpu mode, so none are added then).
 */
public record SimSettings(String model, long seed, double prefillMs, double prefillMsPerToken, double kvMsPerToken,
    double itlMs, boolean gpuTiming, List<String> extraFlags) {

  public SimSettings {
    extraFlags = List.copyOf(extraFlags);
  }

  /** The relay benchmark's engines: the simple timing mode with these times. */
  public SimSettings(String model, long seed, double prefillMs, double prefillMsPerToken, double kvMsPerToken,
      double itlMs) {
    this(model, seed, prefillMs, prefillMsPerToken, kvMsPerToken, itlMs, false, List.of());
  }

  /** Engines in the gpu timing mode ({@code --timing gpu}), tuned by {@code gpuFlags}. */
  public static SimSettings gpu(String model, long seed, List<String> gpuFlags) {
    return new SimSettings(model, seed, 0, 0, 0, 0, true, gpuFlags);
  }

  public List<String> flags() {
    List<String> f = new ArrayList<>();
    f.add("--model=" + model);
    f.add("--seed=" + seed);
    if (gpuTiming) {
      f.add("--timing=gpu");
    } else {
      f.add("--prefill-ms=" + prefillMs);
      f.add("--prefill-ms-per-token=" + prefillMsPerToken);
      f.add("--kv-ms-per-token=" + kvMsPerToken);
      f.add("--itl-ms=" + itlMs);
    }
    f.add("--io-threads=1");
    f.addAll(extraFlags);
    return f;
  }
}
