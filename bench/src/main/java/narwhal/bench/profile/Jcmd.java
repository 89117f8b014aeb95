package narwhal.bench.profile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code jcmd <pid> <command...>} from the JDK running the harness, and returns its output. */
final class Jcmd {

  private final String jcmd;

  Jcmd(String java) {
    Path sibling = Path.of(java).resolveSibling("jcmd");
    this.jcmd = Files.isExecutable(sibling) ? sibling.toString() : "jcmd";
  }

  /** What jcmd printed; a failure to run it at all comes back as the output text too. */
  Result run(long pid, String... command) {
    List<String> cmd = new ArrayList<>(List.of(jcmd, Long.toString(pid)));
    cmd.addAll(List.of(command));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(false, out + " (jcmd did not finish in 60 s)");
      }
      return new Result(p.exitValue() == 0, out);
    } catch (IOException e) {
      return new Result(false, "could not run " + jcmd + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(false, "interrupted");
    }
  }

  /** jcmd's exit status said success, and what it printed. */
  record Result(boolean exitedZero, String output) {}
}
