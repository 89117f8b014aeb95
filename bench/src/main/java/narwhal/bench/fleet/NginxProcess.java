package narwhal.bench.fleet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import narwhal.bench.load.HttpTarget;

/** nginx in the foreground ({@code daemon off}) with a generated config in its own directory. */
public final class NginxProcess {

  private NginxProcess() {}

  /**
   * @param cpuPrefix what to run nginx under ({@code taskset -c CPU}), or nothing; its workers
   *     inherit the master's placement
   */
  public static ManagedProcess start(String nginx, Path dir, NginxConfig.Ports ports, List<HttpTarget> prefill,
      List<HttpTarget> decode, String workers, int openFiles, List<String> cpuPrefix) {
    try {
      Files.createDirectories(dir.resolve("tmp"));
      for (String t : List.of("body", "proxy", "fastcgi", "uwsgi", "scgi")) {
        Files.createDirectories(dir.resolve("tmp").resolve(t));
      }
      Path conf = dir.resolve("nginx.conf");
      Files.writeString(conf, NginxConfig.render(dir, ports, prefill, decode, workers, openFiles));
      List<String> cmd = new ArrayList<>(cpuPrefix);
      cmd.addAll(List.of(nginx, "-p", dir.toAbsolutePath().toString(), "-c", conf.toAbsolutePath().toString(),
          "-e", dir.resolve("error.log").toAbsolutePath().toString()));
      ManagedProcess p = ManagedProcess.start("nginx", cmd, Map.of(), dir.resolve("nginx.out"));
      try {
        p.awaitPort(ports.decode(), Duration.ofSeconds(20));
        p.awaitPort(ports.prefill(), Duration.ofSeconds(20));
      } catch (RuntimeException e) {
        p.close();
        throw e;
      }
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code nginx -v}, e.g. {@code nginx/1.22.1}; empty when nginx is missing. */
  public static String version(String nginx) {
    try {
      Process p = new ProcessBuilder(nginx, "-v").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor();
      return out.replace("nginx version: ", "");
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
