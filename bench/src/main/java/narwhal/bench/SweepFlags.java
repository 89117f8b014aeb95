package narwhal.bench;

import java.nio.file.Path;
import java.util.OptionalInt;
import narwhal.bench.cpu.Pinning;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The flags {@code sweep}, {@code profile}, {@code smoke} and {@code cpus} share. */
final class SweepFlags {

  @Option(names = "--levels", paramLabel = "N,...",
      description = "closed-loop concurrency levels (default 1,16,64,256,1024,4096; profile: 256)")
  @Nullable String levels;

  @Option(names = "--prompt-words", paramLabel = "N", description = "prompt length (default ${DEFAULT-VALUE})")
  int promptWords = 128;

  @Option(names = "--output-tokens", paramLabel = "N", description = "tokens per stream (default ${DEFAULT-VALUE})")
  int outputTokens = 64;

  @Option(names = "--prompts", paramLabel = "N", description = "distinct prompts (default ${DEFAULT-VALUE})")
  int prompts = 256;

  @Option(names = "--itl-ms", paramLabel = "X", description = "engines' inter-token time (default ${DEFAULT-VALUE})")
  double itlMs = 20;

  @Option(names = "--prefill-ms", paramLabel = "X", description = "engines' fixed prefill time (default ${DEFAULT-VALUE})")
  double prefillMs = 2;

  @Option(names = "--prefill-ms-per-token", paramLabel = "X",
      description = "engines' prefill time per prompt token (default ${DEFAULT-VALUE})")
  double prefillMsPerToken = 0.02;

  @Option(names = "--kv-ms-per-token", paramLabel = "X",
      description = "engines' KV pull time per prompt token (default ${DEFAULT-VALUE})")
  double kvMsPerToken = 0.005;

  @Option(names = "--prefill-engines", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  int prefillEngines = 2;

  @Option(names = "--decode-engines", paramLabel = "N", description = "default ${DEFAULT-VALUE}")
  int decodeEngines = 2;

  @Option(names = "--warm-s", paramLabel = "S", description = "unmeasured load per arm first (default ${DEFAULT-VALUE})")
  double warmS = 60;

  @Option(names = "--warm-streams", paramLabel = "N", description = "streams of that load (default ${DEFAULT-VALUE})")
  int warmStreams = 256;

  @Option(names = "--warmup-s", paramLabel = "S", description = "unmeasured start of each run (default ${DEFAULT-VALUE})")
  double warmupS = 3;

  @Option(names = "--measure-s", paramLabel = "S",
      description = "measurement window; a closed-loop level's is at least three of its ramps (default ${DEFAULT-VALUE})")
  double measureS = 10;

  @Option(names = "--ramp-s", paramLabel = "S",
      description = "longest ramp to a level; streams start 2 ms apart up to it (default ${DEFAULT-VALUE})")
  double rampS = 10;

  @Option(names = "--timeout-s", paramLabel = "S", description = "per-stream timeout (default ${DEFAULT-VALUE})")
  int timeoutS = 120;

  @Option(names = "--loops", paramLabel = "N", description = "load generator event loops (default ${DEFAULT-VALUE})")
  int loops = 2;

  @Option(names = "--router-java-opts", paramLabel = "'...'",
      description = "the router's JVM options (default: the options in <repo>/bin/jvm.options, as bin/narwhal)")
  @Nullable String routerJavaOpts;

  @Option(names = "--engine-java-opts", paramLabel = "'...'", description = "default ${DEFAULT-VALUE}")
  String engineJavaOpts = "-Xms256m -Xmx1g";

  @Option(names = "--nginx", paramLabel = "PATH", description = "the nginx binary (default ${DEFAULT-VALUE})")
  String nginx = "nginx";

  @Option(names = "--nginx-workers", paramLabel = "N|auto", description = "default 1 when pinned, auto when not")
  @Nullable String nginxWorkers;

  @Option(names = "--pin", paramLabel = "auto|on|off", description = {
      "auto (default): the proxy under test (router JVM, nginx) runs alone on one CPU, engines and load generator "
          + "on the others; falls back to unpinned, with a warning, on one CPU or without taskset; on: pinned or "
          + "fail; off: every process on every CPU"})
  String pin = "auto";

  @Option(names = "--proxy-cpu", paramLabel = "N", description = "the proxy's CPU (default: the highest allowed one)")
  @Nullable Integer proxyCpu;

  @Option(names = "--cpus", paramLabel = "LIST",
      description = "the CPUs the run may use (default: this process's allowed CPUs)")
  @Nullable String cpus;

  @Option(names = "--repo", paramLabel = "DIR", description = "the source tree (default ${DEFAULT-VALUE})")
  Path repo = Path.of(".");

  @Option(names = "--router-jar", paramLabel = "JAR", description = "the router's runnable jar (default: under --repo)")
  @Nullable Path routerJar;

  @Option(names = "--out", paramLabel = "DIR", description = "where results go (default ${DEFAULT-VALUE})")
  Path out = Path.of("bench/results");

  @Option(names = "--command", paramLabel = "TEXT", description = "the command line the report quotes")
  @Nullable String command;

  Pinning pinning() {
    OptionalInt proxy = proxyCpu == null ? OptionalInt.empty() : OptionalInt.of(proxyCpu);
    return Pinning.detect(Pinning.Mode.parse(pin), proxy, cpus);
  }
}
