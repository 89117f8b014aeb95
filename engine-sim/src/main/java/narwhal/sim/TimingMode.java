package narwhal.sim;

import java.util.Locale;

/** How the simulator paces responses ({@code --timing}). */
enum TimingMode {
  /** Each response paces itself ({@link TimingModel}): the default, cheap and load-blind. */
  SIMPLE,
  /** One step loop per engine, as a GPU under load ({@link narwhal.sim.gpu.StepLoop}). */
  GPU;

  /** {@code simple} or {@code gpu}, any case. */
  static TimingMode parse(String text) {
    switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "simple":
        return SIMPLE;
      case "gpu":
        return GPU;
      default:
        throw new IllegalArgumentException("timing must be simple or gpu, got '" + text + "'");
    }
  }
}
