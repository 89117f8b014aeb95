package narwhal.bench.proc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The kernel's clock tick rate ({@code getconf CLK_TCK}), the unit of CPU times in /proc. */
final class ClockTicks {

  private static final long LINUX_DEFAULT = 100;

  private ClockTicks() {}

  static long perSecond() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      if (p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return Long.parseLong(out);
      }
    } catch (IOException | NumberFormatException e) {
      // getconf missing or odd: the tick rate is 100 on every mainstream Linux build.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return LINUX_DEFAULT;
  }
}
