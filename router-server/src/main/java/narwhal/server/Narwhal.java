package narwhal.server;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        case "check":
          return CheckCommand.run(rest, out);
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
        "  serve --fleet FILE [--host 127.0.0.1] [--port 8000] [--grpc-port 50051] [--journal PATH]",
        "        route OpenAI-compatible requests across the fleet FILE describes",
        "        (runs preflight first; --preflight=warn serves anyway, --preflight=off skips it)",
        "        and narwhal.v1.Router over gRPC on --grpc-port (0 disables gRPC)",
        "  check --fleet FILE",
        "        preflight: reach every engine, check model and engine_contract, probe every KV transfer",
        "  sim   --port N [--engine-id ID] [--model NAME] [timing and fault flags]",
        "        run one simulated vLLM engine (narwhal sim --help lists its flags)",
        "  demo  [--port 8000] [--grpc-port 50051] [--journal PATH]",
        "        a simulated fleet (2 prefill + 2 decode engines) plus the router, in one process",
        "");
  }

  /** Blocks the calling (main) thread until the process is asked to stop, then closes {@code resources}. */
  static void awaitShutdown(AutoCloseable... resources) {
    awaitShutdown(Duration.ZERO, resources);
  }

  /**
   * As {@link #awaitShutdown(AutoCloseable...)}, when closing may take up to {@code grace} (a
   * router draining its in-flight requests): the JVM's shutdown waits that much longer for it.
   */
  static void awaitShutdown(Duration grace, AutoCloseable... resources) {
    Object lock = new Object();
    boolean[] stopping = {false};
    // The hook waits for the resources to close, not for the main thread to end: main goes on to
    // System.exit, which blocks while hooks run, and waiting for it would stall the JVM's exit.
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      synchronized (lock) {
        stopping[0] = true;
        lock.notifyAll();
      }
      try {
        closed.await(15_000 + grace.toMillis(), TimeUnit.MILLISECONDS);
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
    closed.countDown();
  }

}
