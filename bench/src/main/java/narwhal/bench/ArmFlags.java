package narwhal.bench;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The flags of a sweep that {@code profile} does not take: which arms, open loop, close-delimited levels. */
final class ArmFlags {

  @Option(names = "--rates", paramLabel = "R,...", description = "open-loop Poisson arrivals per second instead of levels")
  @Nullable String rates;

  @Option(names = "--arms", paramLabel = "A,...", description = {
      "of direct, narwhal, nginx (relays the decode leg; the targets' reference) and nginx-both (relays both legs, "
          + "the hops the router makes); default ${DEFAULT-VALUE}"})
  String arms = "direct,narwhal,nginx";

  @Option(names = "--close-levels", paramLabel = "N,...", description = {
      "then the engines switch to close-delimited streams (Connection: close, no length; a new engine connection "
          + "per stream) and every arm runs these levels again ('' for none; default ${DEFAULT-VALUE})"})
  String closeLevels = "1,64";

  @Option(names = "--close-warm-s", paramLabel = "S",
      description = "unmeasured load per arm after each switch of style (default ${DEFAULT-VALUE})")
  double closeWarmS = 30;

  @Option(names = "--rounds", paramLabel = "N", description = {
      "times every level runs all its arms, interleaved and in rotated order (direct, narwhal, nginx; then "
          + "narwhal, nginx, direct; ...); each row pools its rounds (CPU, requests and tokens summed, latency "
          + "histograms merged) and the report lists each round's CPU ratio too (default ${DEFAULT-VALUE})"})
  int rounds = 1;

  @Option(names = "--seed", paramLabel = "N", description = "seed of the open-loop arrivals (default ${DEFAULT-VALUE})")
  int seed = 1;

  @Option(names = "--max-in-flight", paramLabel = "N", description = "open loop's cap on streams (default ${DEFAULT-VALUE})")
  int maxInFlight = 8000;
}
