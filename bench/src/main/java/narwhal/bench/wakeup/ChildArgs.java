package narwhal.bench.wakeup;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

/** What the two child mains ({@link EchoServer}, {@link Prober}) share: their arguments and their leash. */
final class ChildArgs {

  private ChildArgs() {}

  /** {@code --name value} pairs. */
  static Map<String, String> parse(String[] args) {
    if (args.length % 2 != 0) {
      throw new IllegalArgumentException("arguments come in --name value pairs, got " + args.length + " words");
    }
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      m.put(args[i], args[i + 1]);
    }
    return m;
  }

  static String get(Map<String, String> args, String name) {
    String v = args.get(name);
    if (v == null) {
      throw new IllegalArgumentException("missing " + name);
    }
    return v;
  }

  /**
   * Exits with {@code status} when standard input reaches its end. The harness holds the other end of that pipe and
   * never writes to it, so the end comes when the harness closes it or dies, even by SIGKILL,
   * which runs no shutdown hook: a child is never left behind pinned to a CPU the next benchmark
   * needs. The watching thread sleeps in read(2), so it costs the measurement nothing.
   */
  static void exitWhenParentGoes(int status) {
    Thread t = new Thread(() -> {
      InputStream in = System.in;
      try {
        while (in.read() >= 0) {
          // nothing is ever sent; read on until the end
        }
      } catch (IOException e) {
        // a broken pipe means the same
      }
      System.exit(status);
    }, "parent-watch");
    t.setDaemon(true);
    t.start();
  }
}
