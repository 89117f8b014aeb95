package narwhal.bench;

import picocli.CommandLine.Option;

/** {@code profile}'s own flags. */
final class ProfilerFlags {

  @Option(names = "--alloc-profile", paramLabel = "on|off",
      description = "a second window for an allocation profile (default ${DEFAULT-VALUE})")
  String allocProfile = "on";

  @Option(names = "--profiler", paramLabel = "async|jfr",
      description = "async-profiler, or JFR (which stands in when async-profiler cannot load; default ${DEFAULT-VALUE})")
  String profiler = "async";
}
