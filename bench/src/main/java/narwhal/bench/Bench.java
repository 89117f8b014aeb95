package narwhal.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import narwhal.bench.fleet.NginxProcess;

/**
 * {@code narwhal-bench}: {@code sweep} (the three arms, interleaved per level), {@code profile}
 * (the router's CPU profile at one level) and {@code ceiling} (concurrent slow streams through a
 * heap-capped router). {@code bench/run.sh} builds and runs it.
 */
public final class Bench {

  private Bench() {}

  public static void main(String[] args) throws IOException {
    System.exit(run(args));
  }

  static int run(String[] args) throws IOException {
    String command = args.length == 0 ? "sweep" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    Env env = Env.detect();
    try {
      return switch (command) {
        case "sweep" -> SweepCommand.run(rest, env);
        case "profile" -> SweepCommand.profile(rest, env);
        case "cpus" -> SweepCommand.cpus(rest);
        case "ceiling" -> CeilingCommand.run(rest, env);
        case "help", "--help", "-h" -> {
          System.out.print(usage());
          yield 0;
        }
        default -> {
          System.err.println("narwhal-bench: unknown command '" + command + "'\n" + usage());
          yield 2;
        }
      };
    } catch (IllegalArgumentException e) {
      System.err.println("narwhal-bench " + command + ": " + e.getMessage());
      return 2;
    }
  }

  static String usage() {
    return String.join("\n",
        "usage: bench/run.sh [sweep|profile|ceiling|smoke] [flags]",
        "",
        "  sweep    direct, narwhal and nginx arms, interleaved per level, against the same simulated engines",
        "           --levels 1,16,64,256,1024,4096   closed-loop concurrency levels",
        "           --rates R1,R2                     open-loop Poisson arrivals per second instead",
        "           --close-levels 1,64               then the engines switch to close-delimited streams",
        "                                             (Connection: close, no length; a new engine connection per",
        "                                             stream) and every arm runs these levels again ('' for none)",
        "           --close-warm-s 30                 unmeasured load per arm after each switch of style",
        "           --arms direct,narwhal,nginx       --prompt-words 128  --output-tokens 64  --itl-ms 20",
        "           --warm-s 60  --warm-streams 256  --warmup-s 3  --measure-s 10  --loops 2  --out bench/results",
        "           --router-java-opts '...'          default: the options in <repo>/bin/jvm.options, as bin/narwhal",
        "           --pin auto|on|off                 auto (default): the proxy under test (router JVM, nginx) runs",
        "                                             alone on one CPU, engines and load generator on the others;",
        "                                             falls back to unpinned, with a warning, on one CPU or without",
        "                                             taskset; on: pinned or fail; off: every process on every CPU",
        "           --proxy-cpu N                     the proxy's CPU (default: the highest allowed one)",
        "           --cpus LIST                       the CPUs the run may use (default: this process's allowed CPUs)",
        "           --nginx-workers N|auto            default 1 when pinned, auto when not",
        "  profile  the narwhal arm at one level (--levels 256) after the usual warm-up, with a CPU profile of",
        "           the router over the measurement window only: async-profiler (event=itimer, 1 ms) attached with",
        "           jcmd as the window opens, stopped as it closes -> profile.html, profile.collapsed and the top",
        "           frames by self time in report.md; then a second window for allocations (alloc.html,",
        "           alloc.collapsed; --alloc-profile off skips it). JFR stands in when async-profiler cannot load",
        "           (--profiler jfr forces it). Takes the sweep's flags but --arms, --rates and --close-levels.",
        "  ceiling  --streams 8000 slow streams through the router (JVM options: bin/jvm.options, a 512 MiB heap)",
        "           --itl-ms 2000  --output-tokens 80  --ramp-s 60  --warmup-s 10  --hold-s 30",
        "  cpus     [sweep flags]: prints the CPUs the harness itself runs on when pinned (bench/run.sh uses it)",
        "");
  }

  /** {@code base/<prefix><yyyyMMdd-HHmmss>}, created with its {@code logs} folder. */
  static Path resultsDir(Path base, String prefix) throws IOException {
    String ts = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path dir = base.resolve(prefix + ts);
    Files.createDirectories(dir.resolve("logs"));
    return dir;
  }

  /** The java binary and classpath child JVMs use, and facts about this process. */
  record Env(String java, String classpath) {

    static Env detect() {
      String java = ProcessHandle.current().info().command().orElse("java");
      return new Env(java, System.getProperty("java.class.path"));
    }

    String nginxVersion(String nginx) {
      return NginxProcess.version(nginx);
    }

    int openFilesLimit() {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
          if (line.startsWith("Max open files")) {
            String[] parts = line.substring("Max open files".length()).trim().split("\\s+");
            return Integer.parseInt(parts[0]);
          }
        }
      } catch (IOException | RuntimeException e) {
        // Not Linux, or an unexpected layout: report unknown.
      }
      return -1;
    }
  }
}
