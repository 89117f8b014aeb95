package narwhal.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import narwhal.bench.fleet.NginxProcess;

/**
 * {@code narwhal-bench}: {@code sweep} (the three arms, interleaved per level) and {@code ceiling}
 * (concurrent slow streams through a heap-capped router). {@code bench/run.sh} builds and runs it.
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
        "usage: bench/run.sh [sweep|ceiling|smoke] [flags]",
        "",
        "  sweep    direct, narwhal and nginx arms, interleaved per level, against the same simulated engines",
        "           --levels 1,16,64,256,1024,4096   closed-loop concurrency levels",
        "           --rates R1,R2                     open-loop Poisson arrivals per second instead",
        "           --arms direct,narwhal,nginx       --prompt-words 128  --output-tokens 64  --itl-ms 20",
        "           --warm-s 20  --warmup-s 3  --measure-s 10  --loops 2  --router-java-opts '-Xms1g -Xmx1g'  --out bench/results",
        "  ceiling  --streams 8000 slow streams through the router with --router-java-opts -Xmx512m",
        "           --itl-ms 2000  --output-tokens 80  --ramp-s 60  --warmup-s 10  --hold-s 30",
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
