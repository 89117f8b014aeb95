package narwhal.server;

import java.io.PrintStream;
import java.util.Arrays;

/** The {@code narwhal} command: {@code serve}, {@code sim}, {@code demo}. */
public final class Narwhal {

  private Narwhal() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    String command = args.length == 0 ? "help" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    try {
      switch (command) {
        case "serve":
          return ServeCommand.run(rest, out);
        case "sim":
          return SimCommand.run(rest, out);
        case "demo":
          return DemoCommand.run(rest, out);
        case "help":
        case "--help":
        case "-h":
          out.print(usage());
          return 0;
        default:
          err.println("narwhal: unknown command '" + command + "'");
          err.print(usage());
          return 2;
      }
    } catch (IllegalArgumentException e) {
      err.println("narwhal " + command + ": " + e.getMessage());
      return 2;
    }
  }

  static String usage() {
    return String.join("\n",
        "usage: narwhal <command> [flags]",
        "",
        "  serve --fleet FILE [--host 127.0.0.1] [--port 8000] [--journal PATH]",
        "        route OpenAI-compatible requests across the fleet FILE describes",
        "  sim   --port N [--engine-id ID] [--model NAME] [timing and fault flags]",
        "        run one simulated vLLM engine (narwhal sim --help lists its flags)",
        "  demo  [--port 8000] [--journal PATH]",
        "        a simulated fleet (2 prefill + 2 decode engines) plus the router, in one process",
        "");
  }

  /** Blocks the calling (main) thread until the process is asked to stop, then runs {@code onStop}. */
  static void awaitShutdown(AutoCloseable... resources) {
    Thread main = Thread.currentThread();
    Object lock = new Object();
    boolean[] stopping = {false};
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      synchronized (lock) {
        stopping[0] = true;
        lock.notifyAll();
      }
      try {
        main.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "narwhal-shutdown"));
    synchronized (lock) {
      while (!stopping[0]) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        System.err.println("narwhal: error while stopping: " + e);
      }
    }
  }
}
