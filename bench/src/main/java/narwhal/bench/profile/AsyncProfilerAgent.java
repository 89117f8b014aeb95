package narwhal.bench.profile;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * async-profiler (Maven Central {@code tools.profiler:async-profiler}, shaded into the bench jar)
 * driven through {@code jcmd <pid> JVMTI.agent_load <lib> "<action>,..."}: the native library is
 * loaded into the router at the first call and each later call passes it a new action. The
 * profiled JVM needs no flag of its own, so the router runs exactly as it does unprofiled.
 *
 * <p>Success is the agent's return code, which jcmd relays ({@code return code: 0}); the agent's
 * own messages ("Profiling started") go to the router's output, i.e. its log.
 *
 * <p>The option string goes to jcmd in double quotes: jcmd's own argument parser would otherwise
 * read the {@code =} in {@code event=itimer} as one of its {@code name=value} options and hand the
 * agent a mangled string.
 */
final class AsyncProfilerAgent {

  private final Jcmd jcmd;
  private final Path library;

  private AsyncProfilerAgent(Jcmd jcmd, Path library) {
    this.jcmd = jcmd;
    this.library = library;
  }

  /** The library for this machine from the classpath, copied into {@code dir}; empty when there is none. */
  static Optional<AsyncProfilerAgent> extract(Jcmd jcmd, Path dir) {
    Optional<String> resource = resourceFor(System.getProperty("os.name"), System.getProperty("os.arch"));
    if (resource.isEmpty()) {
      return Optional.empty();
    }
    try (InputStream in = AsyncProfilerAgent.class.getClassLoader().getResourceAsStream(resource.get())) {
      if (in == null) {
        return Optional.empty();
      }
      Files.createDirectories(dir);
      Path lib = dir.resolve("libasyncProfiler.so");
      Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
      return Optional.of(new AsyncProfilerAgent(jcmd, lib));
    } catch (IOException e) {
      throw new UncheckedIOException("could not extract async-profiler", e);
    }
  }

  /** Where the async-profiler jar keeps the library for an OS and architecture. */
  static Optional<String> resourceFor(String osName, String osArch) {
    if (!osName.toLowerCase(Locale.ROOT).contains("linux")) {
      return Optional.empty();
    }
    return switch (osArch) {
      case "amd64", "x86_64" -> Optional.of("linux-x64/libasyncProfiler.so");
      case "aarch64", "arm64" -> Optional.of("linux-arm64/libasyncProfiler.so");
      default -> Optional.empty();
    };
  }

  /** Starts profiling {@code event} (e.g. {@code event=itimer,interval=1ms}); empty on success, else why not. */
  Optional<String> start(long pid, String event) {
    Jcmd.Result r = agent(pid, "start," + event);
    return succeeded(r) ? Optional.empty() : Optional.of(r.output());
  }

  /**
   * Writes what was collected since {@link #start} as collapsed stacks, then stops and writes the
   * flame graph; empty on success, else what went wrong.
   */
  Optional<String> stop(long pid, Path collapsed, Path html) {
    Jcmd.Result dump = agent(pid, "dump,collapsed,file=" + collapsed.toAbsolutePath());
    Jcmd.Result stop = agent(pid, "stop,file=" + html.toAbsolutePath());
    if (succeeded(dump) && succeeded(stop) && Files.exists(collapsed)) {
      return Optional.empty();
    }
    return Optional.of("dump: " + dump.output() + "; stop: " + stop.output());
  }

  /** jcmd ran, the library loaded, and the agent returned 0. */
  static boolean succeeded(Jcmd.Result r) {
    return r.exitedZero() && r.output().lines().anyMatch(l -> l.strip().equals("return code: 0"));
  }

  private Jcmd.Result agent(long pid, String options) {
    return jcmd.run(pid, "JVMTI.agent_load", library.toString(), "\"" + options + "\"");
  }
}
